ALTER TABLE host_sends ADD COLUMN via TEXT NOT NULL DEFAULT '';

--bun:split

DROP INDEX host_sends_due_idx;

--bun:split

CREATE INDEX host_sends_due_idx ON host_sends (next_at) WHERE state = 'pending' AND via = '';

--bun:split

CREATE INDEX host_sends_via_idx ON host_sends (owner, via, next_at) WHERE state = 'pending' AND via <> '';
