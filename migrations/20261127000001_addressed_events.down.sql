DROP INDEX IF EXISTS invoices_addressed_event_idx;
