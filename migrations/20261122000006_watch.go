package migrations

// On PostgreSQL, a change to what authenticates a request (an API key
// revoked or deleted, a wallet deleted) sends NOTIFY once it commits, on the
// channel hearth_auth_<schema>, to every replica's store.Watch: they drop
// the API keys they cache. SQLite is opened by one process, which tells its
// own cache directly.
//
// hearth_notify(topic) is the trigger function of every such channel
// (migration 20261122000008_plugins_watch uses it too). The triggers fire
// once per statement, even one that changed no row: a spare notification
// only empties a cache. The channel carries the schema so that instances in
// separate schemas of one database do not disturb each other; like
// store.channelName, it is cut to 63 bytes.
const watchUp = `
CREATE FUNCTION hearth_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(left(TG_ARGV[0] || '_' || current_schema(), 63), '');
    RETURN NULL;
END
$$;
CREATE TRIGGER api_keys_notify_auth AFTER UPDATE OR DELETE OR TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION hearth_notify('hearth_auth');
CREATE TRIGGER wallets_notify_auth AFTER DELETE OR TRUNCATE ON wallets
    FOR EACH STATEMENT EXECUTE FUNCTION hearth_notify('hearth_auth');
`

const watchDown = `
DROP TRIGGER IF EXISTS wallets_notify_auth ON wallets;
DROP TRIGGER IF EXISTS api_keys_notify_auth ON api_keys;
DROP FUNCTION IF EXISTS hearth_notify();
`

func init() {
	All.MustRegister(onPostgres(watchUp), onPostgres(watchDown))
}
