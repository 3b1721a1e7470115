package migrations

// On PostgreSQL, a change to the plugins table (a plugin installed,
// enabled, configured, disabled, failed or removed) sends NOTIFY once it
// commits, on the channel hearth_plugins_<schema>, to every replica's
// store.Watch: each brings its registry in line with the table
// (host.Registry.Sync). hearth_notify is migration 20261122000006_watch's.
const pluginsWatchUp = `
CREATE TRIGGER plugins_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON plugins
    FOR EACH STATEMENT EXECUTE FUNCTION hearth_notify('hearth_plugins')`

const pluginsWatchDown = `DROP TRIGGER IF EXISTS plugins_notify ON plugins`

func init() {
	All.MustRegister(onPostgres(pluginsWatchUp), onPostgres(pluginsWatchDown))
}
