// Package schema holds the tables of the onchain plugin, its migrations in
// its own folder: linking the plugin (plugins/onchain imports this
// package) registers them in the one ordered set Hearth migrates
// (migrations.All), under the versions they always had, so a database
// migrated before they moved here is up to date.
package schema

import (
	"embed"

	"github.com/hearthwallet/hearth/migrations"
)

//go:embed *.sql
var files embed.FS

func init() {
	if err := migrations.All.Discover(files); err != nil {
		panic(err)
	}
}
