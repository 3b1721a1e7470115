-- A plugin's code lives in a table of its own: SQLite rewrites a whole row,
-- its overflow pages included, for a change of any column, so a state
-- change beside megabytes of code wrote them all again.
CREATE TABLE plugin_code (
    name TEXT PRIMARY KEY,
    wasm BYTEA NOT NULL
);

--bun:split

INSERT INTO plugin_code (name, wasm) SELECT name, wasm FROM plugins;

--bun:split

ALTER TABLE plugins DROP COLUMN wasm;
