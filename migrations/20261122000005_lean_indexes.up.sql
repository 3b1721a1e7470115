-- Indexes that only some rows need leave the others out, so that an
-- internal payment writes fewer pages: a settled invoice leaves the index
-- of pending ones, a payment that is not pending never enters it, and a
-- payment without an idempotency key takes no entry for one.
DROP INDEX invoices_pending_idx;

--bun:split

CREATE INDEX invoices_pending_idx ON invoices (expires_at) WHERE status = 'Pending';

--bun:split

DROP INDEX payments_pending_idx;

--bun:split

CREATE INDEX payments_pending_idx ON payments (ledger) WHERE status = 'Pending';

--bun:split

DROP INDEX payments_idempotency_idx;

--bun:split

CREATE UNIQUE INDEX payments_idempotency_idx ON payments (wallet_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
