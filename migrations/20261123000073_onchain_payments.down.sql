ALTER TABLE payments DROP COLUMN btc_txid;

--bun:split

ALTER TABLE payments DROP COLUMN btc_address;
