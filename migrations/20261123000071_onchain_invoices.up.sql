-- The output that paid an Onchain invoice (core/ledger/onchain.go): a
-- deposit to an address of plugins/onchain, recorded once per outpoint
-- (its payment_hash is a hash of the outpoint, unique as every invoice's).
ALTER TABLE invoices ADD COLUMN btc_txid TEXT;

--bun:split

ALTER TABLE invoices ADD COLUMN btc_vout BIGINT;

--bun:split

ALTER TABLE invoices ADD COLUMN btc_address TEXT;

--bun:split

ALTER TABLE invoices ADD COLUMN btc_amount_sat BIGINT;

--bun:split

ALTER TABLE invoices ADD COLUMN btc_block_height BIGINT;

--bun:split

ALTER TABLE invoices ADD COLUMN btc_confirmations BIGINT;
