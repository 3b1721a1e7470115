// Command noop is a test plugin that does nothing on events, and exports
// bench_ping, which calls the host's no-op function n times.
package main

import "github.com/hearthwallet/hearth/sdk"

func init() {
	sdk.OnEvent(sdk.InvoiceSettled, func(sdk.Event) error { return nil })
	sdk.OnEvent(sdk.PaymentSettled, func(sdk.Event) error { return nil })
}

//go:wasmexport bench_ping
func benchPing(n uint32) uint32 {
	for range n {
		if sdk.Ping() != nil {
			return 1
		}
	}
	return 0
}

func main() {}

//go:wasmexport bench_nop
func benchNop(n uint32) uint32 { return n }
