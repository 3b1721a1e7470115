-- Paying an invoice of this instance finds it by its exact text, which
-- proves it authentic without verifying its signature again.
CREATE INDEX invoices_bolt11_idx ON invoices (bolt11);
