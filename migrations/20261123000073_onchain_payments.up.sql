-- The destination and transaction of an Onchain payment (a spend of the
-- node's on-chain wallet, core/ledger/spend.go).
ALTER TABLE payments ADD COLUMN btc_address TEXT;

--bun:split

ALTER TABLE payments ADD COLUMN btc_txid TEXT;
