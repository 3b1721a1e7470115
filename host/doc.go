// Package host is Hearth's plugin host: the manifest a plugin declares, the
// registry of installed and built-in plugins with their state, grants and
// configuration, the one host API every plugin calls (each call checked
// against the plugin's grant in one place, API.allow), the per-plugin
// key-value store, event delivery after commit, and the outbound HTTP guard.
// Running WebAssembly is package host/wasm's job; the registry only sees
// Runners. Each plugin's event worker is handed to the Loader first when it
// is a Pinner: host/wasm locks it to an OS thread of the lowest priority,
// so that plugin code runs only on CPU time that payments leave idle.
package host
