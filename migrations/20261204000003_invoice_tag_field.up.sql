-- The field of the record that shows an invoice's tag beside tag (a
-- built-in's TagField), kept with the invoice instead of published in
-- the process: the Lightning Address plugin's invoices show theirs as
-- ln_address_id, as they did before tags.
ALTER TABLE invoices ADD COLUMN tag_field TEXT;
UPDATE invoices SET tag_field = 'ln_address_id' WHERE tag_plugin = 'lnurl';
