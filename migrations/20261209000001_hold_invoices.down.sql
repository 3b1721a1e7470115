DROP INDEX invoices_hold_open_idx;
DROP INDEX invoices_accepted_idx;
ALTER TABLE invoices DROP COLUMN cancel_at;
ALTER TABLE invoices DROP COLUMN settle_deadline;
ALTER TABLE invoices DROP COLUMN hold;
