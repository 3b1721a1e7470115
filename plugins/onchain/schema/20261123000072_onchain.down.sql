DROP TABLE IF EXISTS onchain_sync;

--bun:split

DROP TABLE IF EXISTS onchain_addresses;
