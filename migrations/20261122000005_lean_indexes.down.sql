DROP INDEX invoices_pending_idx;

--bun:split

CREATE INDEX invoices_pending_idx ON invoices (status, expires_at);

--bun:split

DROP INDEX payments_pending_idx;

--bun:split

CREATE INDEX payments_pending_idx ON payments (status);

--bun:split

DROP INDEX payments_idempotency_idx;

--bun:split

CREATE UNIQUE INDEX payments_idempotency_idx ON payments (wallet_id, idempotency_key);
