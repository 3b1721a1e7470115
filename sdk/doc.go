// Package sdk is what a Hearth plugin imports. A plugin is an ordinary Go
// main package, built into a WebAssembly reactor:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plugin.wasm .
//
// It registers its handlers in init (a reactor's main never runs) and
// calls the host through typed helpers: Wallet().Balance(), CreateInvoice,
// Pay, PayLightningAddress, Invoices, Payments, KV, HTTP, Log and Config.
// Every helper is checked by the host against the scopes the admin granted;
// a call beyond them returns an *Error with Code "permission_denied".
//
// The SDK owns the ABI (import module "hearth_v2"; "hearth_v1" modules still load, JSON over ptr/len; see
// host/abi.md in the Hearth repository), so plugin code never sees a
// pointer. Built natively (go test), the same calls go to a test double:
// see package sdktest.
//
// The SDK imports the standard library only.
package sdk
