package main

import (
	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/builtins"
	"github.com/hearthwallet/hearth/core/config"
)

// builtinList is the explicit list of Hearth's built-in plugins, in the
// order the application wires them: the node backends (node.backend
// picks the one that is the node), then the features. Each owns its
// section of the configuration.
func builtinList() []app.Builtin {
	return append([]app.Builtin{app.EmbeddedNode(), builtins.LND(), builtins.CLN()}, builtins.Features()...)
}

// loadConfig loads the configuration with the built-ins' sections, each
// checked by its built-in.
func loadConfig(path string, environ []string) (config.Config, error) {
	return app.LoadConfig(path, environ, builtinList())
}
