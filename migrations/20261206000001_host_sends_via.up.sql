ALTER TABLE host_sends ADD COLUMN via TEXT NOT NULL DEFAULT '';

--bun:split

CREATE INDEX host_sends_via_idx ON host_sends (owner, via, next_at) WHERE state = 'pending' AND via <> '';
