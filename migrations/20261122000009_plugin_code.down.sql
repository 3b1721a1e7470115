ALTER TABLE plugins ADD COLUMN wasm BYTEA NOT NULL DEFAULT '';

--bun:split

UPDATE plugins SET wasm = (SELECT wasm FROM plugin_code WHERE plugin_code.name = plugins.name);

--bun:split

DROP TABLE plugin_code;
