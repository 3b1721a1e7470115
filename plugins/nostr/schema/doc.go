// Package schema holds the tables of the nostr plugin, its migrations in
// its own folder: linking the plugin (plugins/nostr imports this package)
// registers them in the one ordered set Hearth migrates
// (migrations.All), under the versions they always had, so a database
// migrated before they moved here is up to date.
package schema
