// Package host is Hearth's plugin host: the manifest a plugin declares, the
// registry of installed and built-in plugins with their state, grants and
// configuration, the one host API every plugin calls (each call checked
// against the plugin's grant in one place, API.allow), the per-plugin
// key-value store, event delivery after commit, and the outbound HTTP guard.
// Running WebAssembly is package host/wasm's job; the registry only sees
// Runners.
package host
