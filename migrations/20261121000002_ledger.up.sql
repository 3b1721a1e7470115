CREATE TABLE invoices (
    id                          TEXT PRIMARY KEY,
    wallet_id                   TEXT NOT NULL REFERENCES wallets (id),
    ln_address_id               TEXT,
    description                 TEXT,
    description_hash            TEXT,
    amount_msat                 BIGINT,
    amount_received_msat        BIGINT,
    status                      TEXT NOT NULL,
    ledger                      TEXT NOT NULL,
    fee_msat                    BIGINT,
    payment_time                TIMESTAMPTZ,
    bolt11                      TEXT NOT NULL,
    payment_hash                TEXT NOT NULL UNIQUE,
    payment_secret              TEXT NOT NULL,
    payment_preimage            TEXT,
    payee_pubkey                TEXT NOT NULL,
    min_final_cltv_expiry_delta BIGINT NOT NULL,
    expiry                      BIGINT NOT NULL,
    expires_at                  TIMESTAMPTZ NOT NULL,
    created_at                  TIMESTAMPTZ NOT NULL,
    updated_at                  TIMESTAMPTZ
);

--bun:split

CREATE INDEX invoices_wallet_idx ON invoices (wallet_id, created_at, id);

--bun:split

CREATE INDEX invoices_pending_idx ON invoices (status, expires_at);

--bun:split

CREATE TABLE payments (
    id                   TEXT PRIMARY KEY,
    wallet_id            TEXT NOT NULL REFERENCES wallets (id),
    amount_msat          BIGINT NOT NULL,
    fee_msat             BIGINT,
    reserved_msat        BIGINT NOT NULL DEFAULT 0,
    status               TEXT NOT NULL,
    ledger               TEXT NOT NULL,
    error                TEXT,
    description          TEXT,
    payment_time         TIMESTAMPTZ,
    payment_hash         TEXT,
    payment_preimage     TEXT,
    bolt11               TEXT,
    idempotency_key      TEXT,
    request_hash         TEXT,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ
);

--bun:split

CREATE INDEX payments_wallet_idx ON payments (wallet_id, created_at, id);

--bun:split

CREATE INDEX payments_pending_idx ON payments (status);

--bun:split

CREATE UNIQUE INDEX payments_idempotency_idx ON payments (wallet_id, idempotency_key);

--bun:split

-- One live outgoing payment per payment hash: a second attempt at the same
-- invoice cannot start while one is pending or after one settled.
CREATE UNIQUE INDEX payments_live_hash_idx ON payments (payment_hash) WHERE status <> 'Failed' AND ledger = 'Lightning';
