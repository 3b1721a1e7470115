ALTER TABLE invoices DROP COLUMN fiat_fixed;
ALTER TABLE invoices DROP COLUMN fiat_at;
ALTER TABLE invoices DROP COLUMN fiat_rate;
ALTER TABLE invoices DROP COLUMN fiat_currency;
ALTER TABLE invoices DROP COLUMN fiat_amount;
