-- The node a keysend payment went to (core/ledger/keysend.go), and the
-- custom records it carried, as JSON {type: hex}; NULL for every other
-- payment. Written by an UPDATE in the payment's own transaction, so that
-- the hot insert stays as it is.
ALTER TABLE payments ADD COLUMN destination TEXT;
ALTER TABLE payments ADD COLUMN tlv_records TEXT;
