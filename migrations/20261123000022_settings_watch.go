package migrations

// On PostgreSQL, a change to the settings (the token signing secret
// rotated by a password change, above all) sends NOTIFY once it commits, on
// the channel hearth_settings_<schema>, to every replica's store.Watch: each
// reads the secret again, so that a token signed with the old one is
// refused everywhere at once. hearth_notify is migration
// 20261122000006_watch's.
const settingsWatchUp = `
CREATE TRIGGER settings_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON settings
    FOR EACH STATEMENT EXECUTE FUNCTION hearth_notify('hearth_settings')`

const settingsWatchDown = `DROP TRIGGER IF EXISTS settings_notify ON settings`

func init() {
	All.MustRegister(onPostgres(settingsWatchUp), onPostgres(settingsWatchDown))
}
