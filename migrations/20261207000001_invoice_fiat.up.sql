-- What an invoice was asked for in a currency, and at what rate
-- (ledger.Fiat): the amount as typed, the currency, the rate in sat per
-- unit as a decimal string (exact: no float), when the rate held, and
-- whether the operator set it by hand. NULL for an amount in msat.
ALTER TABLE invoices ADD COLUMN fiat_amount TEXT;
ALTER TABLE invoices ADD COLUMN fiat_currency TEXT;
ALTER TABLE invoices ADD COLUMN fiat_rate TEXT;
ALTER TABLE invoices ADD COLUMN fiat_at TIMESTAMPTZ;
ALTER TABLE invoices ADD COLUMN fiat_fixed BOOLEAN;
