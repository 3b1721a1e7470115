package cln

import (
	"encoding/json"
	"fmt"
	"time"
)

// Hold invoices on Core Lightning, which has none of its own. The guard
// plugin (guardplugin.go) holds them:
//
//   - Hearth writes the invoice's terms into lightningd's datastore
//     (holdRecord, under holdKey) and has lightningd sign a BOLT11 invoice
//     it built for the payment hash (signinvoice): lightningd never learns
//     a preimage, and keeps no invoice of its own for the hash.
//   - The plugin holds the htlc_accepted hook. An HTLC that ends here for
//     a hash with a record is checked against the terms (payment secret,
//     amount, CLTV, expiry) and held: the hook is not answered. Once the
//     parts held reach the amount, the invoice is accepted.
//   - Hearth settles (the hearth-holdsettle method: the plugin stores the
//     preimage in the record first, then resolves every HTLC held) or
//     cancels (hearth-holdcancel: stored, then the HTLCs failed back).
//   - Hearth follows each open hold invoice with hearth-holdwait, which
//     answers once the invoice's state differs from the one Hearth saw.
//
// Across restarts: lightningd replays the htlc_accepted hook for every
// HTLC without a final verdict, and the record says what to do with it —
// hold it again, or resolve or fail it as already decided. So a hold
// survives a restart of Hearth (the plugin runs on) and of lightningd when
// lightningd loads the plugin at its start (plugin=/path/to/hearth in its
// config, with node.cln.guard "external"): with "auto", Hearth starts the
// plugin only after lightningd is up, and lightningd has failed the
// replayed HTLCs back by then (the payer's payment fails; nothing is lost).

// holdKey is the datastore key of the hold invoice of paymentHash.
func holdKey(paymentHash string) []string { return []string{"hearth", "hold", paymentHash} }

// The states of a hold invoice in its record and in holdState.
const (
	holdOpen      = "open"      // waiting for its payment
	holdAccepted  = "accepted"  // the parts held reach its amount (holdState only)
	holdSettled   = "settled"   // resolved with Preimage
	holdCancelled = "cancelled" // failed back
)

// holdRecord is a hold invoice's terms and outcome, in the datastore.
type holdRecord struct {
	AmountMsat    int64  `json:"amount_msat"`
	PaymentSecret string `json:"payment_secret"`
	// CLTV is the invoice's min_final_cltv_expiry_delta: an HTLC must give
	// at least this many blocks.
	CLTV      int64  `json:"cltv"`
	ExpiresAt int64  `json:"expires_at"` // unix seconds
	State     string `json:"state"`      // holdOpen, holdSettled or holdCancelled
	// Accepted says the parts held once reached the amount.
	Accepted bool   `json:"accepted,omitempty"`
	Preimage string `json:"preimage,omitempty"`
	// ReceivedMsat is what the HTLCs settled carried; Parts name them
	// (channel/number), so that one lightningd replays after a crash is
	// resolved again, and no other HTLC of the hash is taken.
	ReceivedMsat int64    `json:"received_msat,omitempty"`
	Parts        []string `json:"parts,omitempty"`
}

// expired reports whether the invoice can no longer be paid at now.
func (r *holdRecord) expired(now time.Time) bool { return now.Unix() >= r.ExpiresAt }

// decodeHoldRecord reads a record from the datastore's string.
func decodeHoldRecord(s string) (*holdRecord, error) {
	var r holdRecord
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return nil, fmt.Errorf("hold invoice record: %w", err)
	}
	return &r, nil
}

// holdState is what hearth-holdwait and hearth-holdstate answer.
type holdState struct {
	State        string `json:"state"`
	ReceivedMsat int64  `json:"received_msat,omitempty"`
	// HeldUntil is the lowest expiry height of the HTLCs held.
	HeldUntil int64  `json:"held_until,omitempty"`
	Preimage  string `json:"preimage,omitempty"`
	// Refused says why a method did nothing; empty when it did.
	Refused string `json:"refused,omitempty"`
}

// The plugin's methods, as lightningd's JSON-RPC names them.
const (
	methodHoldSettle = "hearth-holdsettle"
	methodHoldCancel = "hearth-holdcancel"
	methodHoldWait   = "hearth-holdwait"
)

// holdSettleRequest settles the hold invoice of PaymentHash with Preimage.
type holdSettleRequest struct {
	PaymentHash string `json:"payment_hash"`
	Preimage    string `json:"preimage"`
}

func (holdSettleRequest) Name() string { return methodHoldSettle }

// holdCancelRequest cancels the hold invoice of PaymentHash.
type holdCancelRequest struct {
	PaymentHash string `json:"payment_hash"`
}

func (holdCancelRequest) Name() string { return methodHoldCancel }

// holdWaitRequest waits until the state of the hold invoice of
// PaymentHash is not Seen, or Timeout seconds pass, and answers it.
type holdWaitRequest struct {
	PaymentHash string `json:"payment_hash"`
	Seen        string `json:"seen,omitempty"`
	Timeout     int64  `json:"timeout,omitempty"`
}

func (holdWaitRequest) Name() string { return methodHoldWait }

// The reasons the plugin gives for refusing a method, in holdState.Refused
// (glightning's jrpc2 server answers every error with code -1).
const (
	refusedUnknown  = "unknown"  // no hold invoice of this hash
	refusedState    = "state"    // settled or cancelled already the other way
	refusedNotHeld  = "not_held" // nothing held to settle
	refusedPreimage = "preimage" // the preimage is not the hash's
)
