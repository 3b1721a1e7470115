package migrations

// On PostgreSQL, a change to the plugins table (a plugin installed,
// enabled, configured, disabled, failed or removed) sends NOTIFY once it
// commits, on the channel hearth_plugins_<schema>, to every replica's
// store.Watch: each brings its registry in line with the table
// (host.Registry.Sync). Like migration 20261122000006_watch, once per
// statement, the channel cut to 63 bytes.
const pluginsWatchUp = `
CREATE FUNCTION hearth_notify_plugins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(left('hearth_plugins_' || current_schema(), 63), '');
    RETURN NULL;
END
$$;
CREATE TRIGGER plugins_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON plugins
    FOR EACH STATEMENT EXECUTE FUNCTION hearth_notify_plugins();
`

const pluginsWatchDown = `
DROP TRIGGER IF EXISTS plugins_notify ON plugins;
DROP FUNCTION IF EXISTS hearth_notify_plugins();
`

func init() {
	All.MustRegister(onPostgres(pluginsWatchUp), onPostgres(pluginsWatchDown))
}
