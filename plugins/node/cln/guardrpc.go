package cln

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/elementsproject/glightning/jrpc2"
)

// The plugin's side of lightningd's plugin protocol: lightningd calls
// getmanifest and init, the hooks and the plugin's methods, and sends the
// shutdown notification, as JSON-RPC over the plugin's stdin and stdout.
// glightning's jrpc2 server frames them. glightning's Plugin is not used:
// its htlc_accepted types predate lightningd v24.11 (amounts as "…msat"
// strings, no amount_msat or total_msat numbers), so each call here reads
// the params it needs as raw JSON and decodes them itself.

// pluginCall is one of lightningd's calls of the plugin: run answers it.
// The exported fields are the params any call may carry; jrpc2 sets the
// ones present (json.RawMessage takes an object as it came).
type pluginCall struct {
	name string
	run  func(c *pluginCall) (any, error)

	Onion         json.RawMessage `json:"onion"`
	HTLC          json.RawMessage `json:"htlc"`
	Payment       json.RawMessage `json:"payment"`
	Configuration json.RawMessage `json:"configuration"`
	PaymentHash   string          `json:"payment_hash"`
	Preimage      string          `json:"preimage"`
	Seen          string          `json:"seen"`
	Timeout       int64           `json:"timeout"`
}

// Name is the method lightningd calls.
func (c *pluginCall) Name() string { return c.name }

// New is a fresh call of the same method, for jrpc2 to fill.
func (c *pluginCall) New() any { return &pluginCall{name: c.name, run: c.run} }

// Call answers the call.
func (c *pluginCall) Call() (jrpc2.Result, error) { return c.run(c) }

// pluginManifest is the answer to getmanifest.
type pluginManifest struct {
	Options       []any            `json:"options"`
	RPCMethods    []pluginRPCEntry `json:"rpcmethods"`
	Hooks         []pluginHook     `json:"hooks"`
	Subscriptions []string         `json:"subscriptions"`
	Dynamic       bool             `json:"dynamic"`
}

type pluginRPCEntry struct {
	Name        string `json:"name"`
	Usage       string `json:"usage"`
	Description string `json:"description"`
}

type pluginHook struct {
	Name   string   `json:"name"`
	Before []string `json:"before,omitempty"`
}

// manifest is the guard's manifest: the hooks it holds and the hold
// invoices' methods.
func manifest() pluginManifest {
	return pluginManifest{
		Options: []any{},
		RPCMethods: []pluginRPCEntry{
			{Name: methodHoldSettle, Usage: "payment_hash preimage", Description: "Hearth: settle a hold invoice's held HTLCs"},
			{Name: methodHoldCancel, Usage: "payment_hash", Description: "Hearth: cancel a hold invoice, failing its held HTLCs back"},
			{Name: methodHoldWait, Usage: "payment_hash [seen] [timeout]", Description: "Hearth: wait for a hold invoice's state to change"},
		},
		// Before lightningd's keysend plugin, which takes a keysend and
		// strips its preimage record (keysendin.go).
		Hooks:         []pluginHook{{Name: "invoice_payment"}, {Name: "htlc_accepted", Before: []string{"keysend"}}},
		Subscriptions: []string{"shutdown"},
		Dynamic:       true,
	}
}

// pluginConfiguration is what init's configuration says that the guard
// reads.
type pluginConfiguration struct {
	LightningDir string `json:"lightning-dir"`
	RPCFile      string `json:"rpc-file"`
}

// htlcAccepted is the htlc_accepted hook's params that the guard reads.
type htlcAccepted struct {
	Onion struct {
		ShortChannelID string `json:"short_channel_id"`
		NextNodeID     string `json:"next_node_id"`
		PaymentSecret  string `json:"payment_secret"`
		TotalMsat      int64  `json:"total_msat"`
		Payload        string `json:"payload"`
	}
	HTLC struct {
		ShortChannelID     string `json:"short_channel_id"`
		ID                 uint64 `json:"id"`
		AmountMsat         int64  `json:"amount_msat"`
		CLTVExpiry         int64  `json:"cltv_expiry"`
		CLTVExpiryRelative int64  `json:"cltv_expiry_relative"`
		PaymentHash        string `json:"payment_hash"`
	}
}

// key names the HTLC: its channel, and its number in it.
func (h *htlcAccepted) key() string { return fmt.Sprintf("%s/%d", h.HTLC.ShortChannelID, h.HTLC.ID) }

// height is the block height lightningd was at when it offered the HTLC.
func (h *htlcAccepted) height() int64 { return h.HTLC.CLTVExpiry - h.HTLC.CLTVExpiryRelative }

// forwarded reports whether the HTLC goes on to another node.
func (h *htlcAccepted) forwarded() bool {
	return h.Onion.ShortChannelID != "" || h.Onion.NextNodeID != ""
}

// hookVerdict is the htlc_accepted hook's answer.
type hookVerdict struct {
	Result         string `json:"result"` // continue, fail, resolve
	FailureMessage string `json:"failure_message,omitempty"`
	PaymentKey     string `json:"payment_key,omitempty"`
}

var hookContinue = hookVerdict{Result: "continue"}

// holdWaitDefault and holdWaitMax bound hearth-holdwait's wait.
const (
	holdWaitDefault = 30 * time.Second
	holdWaitMax     = 5 * time.Minute
)
