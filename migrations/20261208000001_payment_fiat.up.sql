-- What a payment was asked for in a currency, and at what rate
-- (ledger.Fiat), as on invoices (20261207000001). NULL for an amount in
-- msat; written only for a payment asked in a currency, by an UPDATE in
-- the payment's own transaction, so that the hot insert stays as it is.
ALTER TABLE payments ADD COLUMN fiat_amount TEXT;
ALTER TABLE payments ADD COLUMN fiat_currency TEXT;
ALTER TABLE payments ADD COLUMN fiat_rate TEXT;
ALTER TABLE payments ADD COLUMN fiat_at TIMESTAMPTZ;
ALTER TABLE payments ADD COLUMN fiat_fixed BOOLEAN;
