DROP TABLE api_keys;

--bun:split

DROP TABLE wallets;

--bun:split

DROP TABLE settings;
