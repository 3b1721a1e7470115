ALTER TABLE payments DROP COLUMN fiat_fixed;
ALTER TABLE payments DROP COLUMN fiat_at;
ALTER TABLE payments DROP COLUMN fiat_rate;
ALTER TABLE payments DROP COLUMN fiat_currency;
ALTER TABLE payments DROP COLUMN fiat_amount;
