DROP INDEX invoices_bolt11_idx;
