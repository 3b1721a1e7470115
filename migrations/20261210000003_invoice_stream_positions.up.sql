-- Where the ledger's reading of a node's invoice stream got to
-- (core/ledger/streampos.go), by node: a restarted leader asks the node
-- for what it settled since, so that a keysend received while no Hearth
-- followed the node is credited.
CREATE TABLE invoice_stream_positions (
    node TEXT PRIMARY KEY,
    position BIGINT NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
