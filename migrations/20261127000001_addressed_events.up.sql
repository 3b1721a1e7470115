-- The events of the invoices of a Lightning Address, by event id: the page
-- Nostr's consumer reads (outbox.Filter.Addressed) touches those invoices
-- alone, where invoices_event_idx made it walk every settled invoice since
-- its last read to keep a few (issue 38). An entry for each invoice of an
-- address, none for the others.
CREATE INDEX invoices_addressed_event_idx ON invoices (event_id) WHERE ln_address_id IS NOT NULL;
