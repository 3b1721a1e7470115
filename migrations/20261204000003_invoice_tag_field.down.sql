ALTER TABLE invoices DROP COLUMN tag_field;
