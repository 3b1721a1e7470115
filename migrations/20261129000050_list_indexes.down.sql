DROP INDEX IF EXISTS api_keys_live_idx;

--bun:split

DROP INDEX IF EXISTS invoices_onchain_idx;

--bun:split

DROP INDEX IF EXISTS invoices_created_idx;

--bun:split

DROP INDEX IF EXISTS payments_onchain_idx;

--bun:split

DROP INDEX IF EXISTS payments_lightning_idx;

--bun:split

DROP INDEX IF EXISTS payments_failed_idx;

--bun:split

DROP INDEX IF EXISTS payments_created_idx;
