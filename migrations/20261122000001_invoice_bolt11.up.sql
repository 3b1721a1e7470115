-- Paying an invoice of this instance finds it by its exact text, which
-- proves it authentic without verifying its signature again. Unique (as
-- the payment hash already makes it), so that both query planners know a
-- lookup by text is a single row, whatever other condition comes with it.
CREATE UNIQUE INDEX invoices_bolt11_idx ON invoices (bolt11);
