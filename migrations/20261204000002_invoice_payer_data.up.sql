-- What the payer of an invoice said of themselves (LUD-18's payerdata, the
-- JSON object as received), kept on the record; NULL for most invoices.
ALTER TABLE invoices ADD COLUMN payer_data TEXT;
