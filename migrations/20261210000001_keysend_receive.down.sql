ALTER TABLE invoices DROP COLUMN tlv_records;
ALTER TABLE invoices DROP COLUMN keysend;
DROP INDEX wallets_keysend_id_idx;
ALTER TABLE wallets DROP COLUMN keysend_id;
