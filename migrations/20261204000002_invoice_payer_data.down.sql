ALTER TABLE invoices DROP COLUMN payer_data;
