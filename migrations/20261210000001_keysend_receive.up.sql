-- Receiving keysend (core/ledger/keysendreceive.go). A wallet's keysend
-- id: the value a payer puts in custom record 696969 to name the wallet
-- (Podcast Index's keysend address), drawn the first time it is asked
-- for; unique, NULL until then. An invoice made for a keysend the node
-- received: no BOLT11 of Hearth's, Settled when it is written, with the
-- payer's custom records as JSON {type: hex}.
ALTER TABLE wallets ADD COLUMN keysend_id TEXT;
CREATE UNIQUE INDEX wallets_keysend_id_idx ON wallets (keysend_id);
ALTER TABLE invoices ADD COLUMN keysend BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE invoices ADD COLUMN tlv_records TEXT;
