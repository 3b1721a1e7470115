// Package web is the dashboard: a page and its ES modules, embedded into
// the binary with go:embed and served at / by the api package. It runs in
// the browser on top of the public REST API only (the same routes any
// client uses, with the same token), loads nothing from another host, and
// is served under a strict Content-Security-Policy: no inline script or
// style, no framing.
package web
