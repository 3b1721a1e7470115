-- Hold invoices (core/ledger/hold.go): an invoice for a payment hash whose
-- preimage its owner keeps. Paid, it is Accepted (the HTLCs held, or an
-- internal payer's amount reserved) until the owner settles it with the
-- preimage or cancels it; unsettled by cancel_at, or by settle_deadline
-- (the block height its HTLCs expire at) less a margin, Hearth cancels it.
ALTER TABLE invoices ADD COLUMN hold BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE invoices ADD COLUMN settle_deadline BIGINT;
ALTER TABLE invoices ADD COLUMN cancel_at TIMESTAMPTZ;
CREATE INDEX invoices_accepted_idx ON invoices (cancel_at) WHERE status = 'Accepted';
-- The hold invoices still open, which the node's leader watches at the
-- node (core/ledger/holdwatch.go): few, among every invoice.
CREATE INDEX invoices_hold_open_idx ON invoices (status) WHERE hold AND status IN ('Pending', 'Accepted');
