CREATE TABLE plugin_timers (
    plugin  TEXT NOT NULL,
    name    TEXT NOT NULL,
    spec    TEXT NOT NULL,
    due_ms  BIGINT NOT NULL,
    last_ms BIGINT,
    PRIMARY KEY (plugin, name)
);
