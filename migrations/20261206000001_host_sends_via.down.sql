DROP INDEX host_sends_via_idx;

--bun:split

ALTER TABLE host_sends DROP COLUMN via;
