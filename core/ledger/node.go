package ledger

import (
	"context"
	"errors"
	"time"
)

// Node is what the ledger needs from a Lightning node, in wallet terms.
// Backends (embedded, lnd, cln) live in plugins/node and satisfy it.
type Node interface {
	// Info describes the node.
	Info(ctx context.Context) (NodeInfo, error)
	// CreateInvoice issues a BOLT11 invoice payable to the node.
	CreateInvoice(ctx context.Context, req NodeInvoiceRequest) (*NodeInvoice, error)
	// Decode parses a BOLT11 invoice of the node's network.
	Decode(bolt11 string) (*DecodedInvoice, error)
	// Pay pays an external invoice. A *PaymentFailure error is definite:
	// nothing was or will be paid. Any other error is ambiguous.
	Pay(ctx context.Context, req NodePayment) (*NodePaymentResult, error)
	// LookupPayment reports an outgoing payment's state, for reconciliation.
	LookupPayment(ctx context.Context, paymentHash string) (*NodePaymentResult, error)
	// LookupInvoice reports whether an invoice was paid, for reconciliation.
	LookupInvoice(ctx context.Context, paymentHash string) (*InvoiceSettlement, error)
	// CancelInvoice withdraws an invoice the node must no longer accept
	// (it was settled inside the instance; core/withdraw calls it, off the
	// payer's path). Cancelling an invoice already cancelled is no error;
	// one paid at the node answers ErrSettledAtNode, one the node does not
	// know ErrUnknownInvoice.
	CancelInvoice(ctx context.Context, paymentHash string) error
	// SubscribeInvoices delivers settled invoices until ctx ends.
	SubscribeInvoices(ctx context.Context) (<-chan InvoiceSettlement, error)
}

// NodeInfo describes a node for GET /v1/lightning-node/info.
type NodeInfo struct {
	Backend     string `json:"backend"`
	Alias       string `json:"alias"`
	Pubkey      string `json:"pubkey"`
	Network     string `json:"network"`
	BlockHeight uint32 `json:"block_height"`
	// BlockHash is the hash of the node's best block, "" where the
	// backend does not say it (the embedded node has no chain; Core
	// Lightning's getinfo names the height alone).
	BlockHash string `json:"block_hash,omitempty"`
	// Channels counts active channels; the embedded node has none.
	Channels int `json:"channels"`
	// ExternalPayments is false when the node can only settle inside the instance.
	ExternalPayments bool  `json:"external_payments"`
	LocalMsat        int64 `json:"local_balance_msat"`
	RemoteMsat       int64 `json:"remote_balance_msat"`
	OnchainSat       int64 `json:"onchain_balance_sat"`
}

// NodeInvoiceRequest asks the node for an invoice.
type NodeInvoiceRequest struct {
	AmountMsat      int64
	Description     string
	DescriptionHash []byte // when set, Description is not encoded
	// HashedDescription is the text DescriptionHash is the SHA-256 of,
	// when the caller has it: a node that hashes the description itself
	// (cln's invoice with deschashonly) needs it.
	HashedDescription string
	Expiry            time.Duration
}

// NodeInvoice is an invoice the node issued.
type NodeInvoice struct {
	Bolt11                  string
	PaymentHash             string // hex
	PaymentSecret           string // hex
	Preimage                string // hex; empty when the node keeps it
	PayeePubkey             string
	MinFinalCLTVExpiryDelta uint64
	CreatedAt               time.Time
	Expiry                  time.Duration
}

// DecodedInvoice is a parsed BOLT11 invoice.
type DecodedInvoice struct {
	PaymentHash     string
	AmountMsat      int64 // 0 when the invoice has no amount
	Description     string
	DescriptionHash string
	PayeePubkey     string
	CreatedAt       time.Time
	ExpiresAt       time.Time
}

// NodePayment asks the node to pay.
type NodePayment struct {
	Bolt11     string
	AmountMsat int64
	MaxFeeMsat int64
	Timeout    time.Duration
}

// PaymentState is an outgoing payment's state at the node.
type PaymentState int

// The states of an outgoing payment at the node.
const (
	PaymentInFlight PaymentState = iota
	PaymentSucceeded
	PaymentFailedState
	PaymentUnknown // the node has no record of it
)

// NodePaymentResult is what the node says of a payment.
type NodePaymentResult struct {
	State    PaymentState
	FeeMsat  int64
	Preimage string
	Reason   string
}

// InvoiceSettlement says an invoice of the node was paid.
type InvoiceSettlement struct {
	PaymentHash string
	AmountMsat  int64
	Preimage    string
	SettledAt   time.Time
	Settled     bool // for LookupInvoice: false while unpaid
	// Held says the node holds the payment of a hold invoice (hold.go),
	// not settled; HeldUntil is the block height at which the HTLCs it
	// holds expire (0 for a node without a chain).
	Held      bool
	HeldUntil int64
	// Cancelled says the node cancelled the invoice: it holds nothing
	// for it and will accept nothing.
	Cancelled bool
	// Keysend says the payment was a keysend: it paid no invoice of
	// Hearth's, and the ledger writes one for it when it learns of it
	// (keysendreceive.go). CustomRecords are the payer's custom records
	// (types 65536 and up, without the preimage's 5482373484): record
	// KeysendIDRecord names the wallet credited.
	Keysend       bool
	CustomRecords map[uint64][]byte
	// Position is the settlement's place in the node's invoice stream,
	// for a node that resumes it (InvoiceResumer); 0 otherwise.
	Position uint64
	// Done, when set, receives the outcome of applying the settlement.
	Done chan<- error
}

// PaymentFailure is a definite payment failure: the funds never left.
type PaymentFailure struct{ Reason string }

func (e *PaymentFailure) Error() string { return "payment failed: " + e.Reason }

// ExternalPayer is implemented by nodes that can tell up front whether they
// can pay outside the instance at all.
type ExternalPayer interface {
	ExternalPayments() bool
}

// ErrUnknownInvoice is returned by LookupInvoice and CancelInvoice for
// invoices the node does not know.
var ErrUnknownInvoice = errors.New("invoice unknown to the node")

// ErrSettledAtNode is returned by CancelInvoice for an invoice the node
// was already paid for: there is nothing left to withdraw.
var ErrSettledAtNode = errors.New("invoice already settled at the node")

// PaymentSubscriber is implemented by nodes that stream the final states of
// their outgoing payments, so that a payment left in flight is resolved as
// soon as the node knows, not only at the next reconciliation.
type PaymentSubscriber interface {
	// SubscribePayments delivers succeeded and failed payments until ctx
	// ends or the stream breaks, then closes the channel.
	SubscribePayments(ctx context.Context) (<-chan PaymentUpdate, error)
}

// PaymentUpdate is a final state of an outgoing payment at the node.
type PaymentUpdate struct {
	PaymentHash string
	Result      NodePaymentResult
}

// FeeEstimator is implemented by nodes that can price a route before paying.
type FeeEstimator interface {
	// EstimateRouteFee returns the routing fee of paying amountMsat to the
	// payee of bolt11.
	EstimateRouteFee(ctx context.Context, bolt11 string, amountMsat int64) (int64, error)
}

// InvoiceGuard is implemented by nodes that can ask, before they accept a
// payment to one of their invoices, whether they still may (LND's invoice
// HTLC modifier). While a guard runs, an invoice settled inside the
// instance cannot be paid again at the node: the payer's HTLCs are failed
// back, and nobody has to refund anyone.
type InvoiceGuard interface {
	// GuardInvoices asks accept about each payment arriving at the node
	// for one of its invoices, and refuses those it answers false for,
	// until ctx ends (nil) or the node ends the guard (an error: the node
	// went away, or another client guards it). connected is called once
	// the node has taken the guard. Payments arriving while no guard runs
	// are accepted as the node would without one.
	GuardInvoices(ctx context.Context, accept func(ctx context.Context, paymentHash string) bool, connected func()) error
}

// HoldNode is implemented by nodes that hold invoices (hold.go): an
// invoice for a payment hash whose preimage the node is not told, whose
// HTLCs it holds when they arrive, until it is told to settle them (with
// the preimage) or to cancel them (CancelInvoice, which fails them back).
type HoldNode interface {
	// CreateHoldInvoice issues an invoice for req.PaymentHash.
	CreateHoldInvoice(ctx context.Context, req NodeHoldRequest) (*NodeInvoice, error)
	// SettleHoldInvoice settles the held HTLCs of the invoice whose payment
	// hash is the SHA-256 of preimage (hex). Settling one already settled
	// is no error.
	SettleHoldInvoice(ctx context.Context, preimage string) error
}

// NodeHoldRequest asks the node for a hold invoice.
type NodeHoldRequest struct {
	NodeInvoiceRequest
	PaymentHash string // hex
	// MinFinalCLTVExpiryDelta is the invoice's final CLTV delta: how many
	// blocks the last HTLC gives the node to settle.
	MinFinalCLTVExpiryDelta uint64
}

// HoldWatcher is implemented by nodes whose stream of settled invoices
// says nothing of a hold invoice's payment arriving, or of its cancel
// (lnd's): the ledger's leader watches each open hold invoice through it
// (holdwatch.go).
type HoldWatcher interface {
	// WatchHold delivers the changes of the hold invoice of paymentHash —
	// Held, Settled or Cancelled — until it is settled or cancelled, ctx
	// ends or the stream breaks; then the channel is closed.
	WatchHold(ctx context.Context, paymentHash string) (<-chan InvoiceSettlement, error)
}
