DROP TABLE IF EXISTS ledger_checkpoint_wallets;

--bun:split

DROP TABLE IF EXISTS ledger_checkpoint;
