DROP INDEX host_sends_via_idx;

--bun:split

DROP INDEX host_sends_due_idx;

--bun:split

CREATE INDEX host_sends_due_idx ON host_sends (next_at) WHERE state = 'pending';

--bun:split

ALTER TABLE host_sends DROP COLUMN via;
