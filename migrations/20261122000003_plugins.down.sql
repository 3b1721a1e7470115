DROP TABLE plugin_kv;

--bun:split

DROP TABLE plugins;
