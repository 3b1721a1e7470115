// Package app builds a Hearth application from its configuration: the
// node, the ledger, the accounts (tokens, API keys, wallets), the event
// outbox and its live stream, the plugin host (the host API, the
// WebAssembly runtime, the registry) and the built-in plugins the caller
// lists; Start runs their background work and Close stops it. LoadConfig
// reads a configuration with the listed built-ins' own sections.
//
// It is the wiring layer, like cmd: it may import every part, and no part
// of core, host, plugins or api imports it. `hearth serve` (whose list of
// built-ins is explicit, in cmd/hearth), loadbench, the plugin authors'
// harness (plugintest) and the API's and dashboard's test servers are all
// built by New. The embedded node, the zero-setup default, is here; the
// other built-ins are in app/builtins, and app/server serves the HTTP API
// over an App: apart, so that what builds an App without them (the
// plugin authors' harness, the API's tests) does not build them.
package app
