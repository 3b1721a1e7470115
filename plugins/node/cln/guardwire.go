package cln

import (
	"path/filepath"
	"time"
)

// The invoice guard: Core Lightning's answer to lnd's HtlcModifier.
// lightningd runs Hearth's own binary as a plugin (guardplugin.go) that
// holds the invoice_payment hook: before lightningd accepts a payment to
// one of Hearth's invoices (label "hearth:<payment hash>"), the plugin asks
// the Hearth connected to its socket, beside lightningd's JSON-RPC socket,
// whether the ledger still lets the node accept it (guard.go), and rejects
// it (incorrect_or_unknown_payment_details) when the invoice was settled
// inside the instance. So an internal payment need not delete the node's
// invoice at once: the withdrawal (core/withdraw) deletes them at its
// guarded pace while the guard is up.
//
// The socket speaks one JSON object per line. On connecting, the plugin
// greets Hearth (guardHello; with Error set when another Hearth holds the
// guard already, and closes); then it sends a guardQuestion for each
// payment and Hearth answers each with a guardAnswer of the same ID, in any
// order. With no Hearth connected, or one that does not answer within
// guardAskTimeout, the plugin lets lightningd decide as without a guard,
// as lnd does with no modifier: the ledger's node stream then credits such
// a payment once and asks the operator for a refund.

// guardSocketName is the guard's socket, in the directory of lightningd's
// JSON-RPC socket.
const guardSocketName = "hearth-guard.sock"

// guardProtocol names the plugin's greeting, with guardVersion.
const (
	guardProtocol = "hearth-invoice-guard"
	guardVersion  = 1
)

// guardAskTimeout bounds the plugin's wait for Hearth's answer.
const guardAskTimeout = 10 * time.Second

// guardHello is the plugin's first line to a connecting Hearth.
type guardHello struct {
	Guard   string `json:"guard"`
	Version int    `json:"version"`
	Error   string `json:"error,omitempty"`
}

// guardQuestion asks whether lightningd may accept a payment.
type guardQuestion struct {
	ID          uint64 `json:"id"`
	PaymentHash string `json:"payment_hash"`
}

// guardAnswer is Hearth's answer to the question of the same ID.
type guardAnswer struct {
	ID     uint64 `json:"id"`
	Accept bool   `json:"accept"`
}

// guardSocket is the guard's socket for lightningd's JSON-RPC socket at
// rpcFile.
func guardSocket(rpcFile string) string {
	return filepath.Join(filepath.Dir(rpcFile), guardSocketName)
}
