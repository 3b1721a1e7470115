-- The ledger check's checkpoint (core/ledger/checkpoint.go): what the
-- settled history of each wallet sums to through an event id, so that
-- `hearth ledger check` reads only the invoices and payments that settled
-- after it. One row says through which event id, and a generation that
-- each write moves on (a write computed from an older one is refused);
-- one row per wallet holds its sums, a wallet without a row none. No
-- foreign key: a wallet without invoices or payments may be deleted.
CREATE TABLE ledger_checkpoint (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    through_event_id BIGINT NOT NULL,
    generation       BIGINT NOT NULL,
    full_at          TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL
);

--bun:split

CREATE TABLE ledger_checkpoint_wallets (
    wallet_id      TEXT PRIMARY KEY,
    received_msat  BIGINT NOT NULL,
    sent_msat      BIGINT NOT NULL,
    fees_paid_msat BIGINT NOT NULL
);
