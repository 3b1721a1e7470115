ALTER TABLE invoices DROP COLUMN btc_confirmations;

--bun:split

ALTER TABLE invoices DROP COLUMN btc_block_height;

--bun:split

ALTER TABLE invoices DROP COLUMN btc_amount_sat;

--bun:split

ALTER TABLE invoices DROP COLUMN btc_address;

--bun:split

ALTER TABLE invoices DROP COLUMN btc_vout;

--bun:split

ALTER TABLE invoices DROP COLUMN btc_txid;
