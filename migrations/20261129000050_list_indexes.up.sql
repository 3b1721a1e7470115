-- Every list answers in time independent of the table's size (issue 50):
-- the instance-wide lists (the admin's payments, invoices and API keys)
-- read (created_at, id) in either direction, and a cursor page is a range
-- of the same index. A filter on a common value (Settled, Internal,
-- Lightning invoices) is read through the list's order and drops a bounded
-- share of the rows; a value that may be rare gets a partial index of its
-- rows alone, which a payment inside the instance (Settled, Internal)
-- never enters. Pending payments have their partial index already
-- (20261122000005) and are few. The wallet's own lists are served by
-- payments_wallet_idx and invoices_wallet_idx (20261121000002); the
-- filter by API key has an index on PostgreSQL alone (20261129000051).
CREATE INDEX payments_created_idx ON payments (created_at, id);

--bun:split

CREATE INDEX payments_failed_idx ON payments (created_at, id) WHERE status = 'Failed';

--bun:split

CREATE INDEX payments_lightning_idx ON payments (created_at, id) WHERE ledger = 'Lightning';

--bun:split

CREATE INDEX payments_onchain_idx ON payments (created_at, id) WHERE ledger = 'Onchain';

--bun:split

CREATE INDEX invoices_created_idx ON invoices (created_at, id);

--bun:split

CREATE INDEX invoices_onchain_idx ON invoices (created_at, id) WHERE ledger = 'Onchain';

--bun:split

CREATE INDEX api_keys_live_idx ON api_keys (created_at, id) WHERE revoked_at IS NULL AND owner_plugin IS NULL;
