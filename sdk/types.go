package sdk

import (
	"encoding/json"
	"time"
)

// The event types a plugin may subscribe to.
const (
	InvoiceSettled = "invoice.settled"
	PaymentSettled = "payment.settled"
	PaymentFailed  = "payment.failed"
	// InvoiceAccepted is a hold invoice paid and held (CreateHoldInvoice);
	// InvoiceCancelled, one cancelled.
	InvoiceAccepted  = "invoice.accepted"
	InvoiceCancelled = "invoice.cancelled"
)

// Event is something that happened in the plugin's wallet, delivered after
// the transaction that did it has committed.
//
// An Event is valid only while its handler runs: its Data and the bytes
// behind ID and WalletID live in a buffer the next event reuses, so that a
// handler that reads nothing allocates nothing (allocation is costly inside
// the sandbox). The methods return fresh copies, safe to keep.
type Event struct {
	Type string
	At   time.Time
	// Data is the invoice (invoice.*) or payment (payment.*) record, or
	// the data a plugin emitted (its own types), as JSON. Copy it to keep
	// it; Invoice and Payment decode a record.
	Data json.RawMessage

	walletID, id []byte
}

// NewEvent returns an event, for test doubles.
func NewEvent(typ, walletID, id string, at time.Time, data []byte) Event {
	return Event{Type: typ, At: at, Data: data, walletID: []byte(walletID), id: []byte(id)}
}

// ID returns the invoice or payment id, or the subject of a plugin's
// event.
func (e Event) ID() string { return string(e.id) }

// WalletID returns the wallet the event happened in.
func (e Event) WalletID() string { return string(e.walletID) }

// Invoice decodes the event's invoice record.
func (e Event) Invoice() (*Invoice, error) {
	inv := new(Invoice)
	return inv, json.Unmarshal(e.Data, inv)
}

// Payment decodes the event's payment record.
func (e Event) Payment() (*Payment, error) {
	p := new(Payment)
	return p, json.Unmarshal(e.Data, p)
}

// Invoice is an invoice record, as the REST API shows it.
type Invoice struct {
	ID                 string     `json:"id"`
	WalletID           string     `json:"wallet_id"`
	Description        *string    `json:"description,omitempty"`
	AmountMsat         *int64     `json:"amount_msat,omitempty"`
	AmountReceivedMsat *int64     `json:"amount_received_msat,omitempty"`
	Status             string     `json:"status"`
	Ledger             string     `json:"ledger"`
	PaymentTime        *time.Time `json:"payment_time,omitempty"`
	CreatedAt          time.Time  `json:"created_at"`
	// Tag is the tag of the plugin that made the invoice, if it gave one
	// (NewInvoice.Tag).
	Tag *Tag `json:"tag,omitempty"`
	// Fiat is what the invoice was asked for in a currency, and at what
	// rate; nil for an amount in msat.
	Fiat *Fiat `json:"fiat,omitempty"`
	// Hold marks a hold invoice (CreateHoldInvoice); SettleBy is when the
	// host cancels it, Accepted and not settled, and SettleDeadline the
	// block height at which its HTLCs expire, when the node said it.
	Hold           bool       `json:"hold,omitempty"`
	SettleBy       *time.Time `json:"settle_by,omitempty"`
	SettleDeadline *int64     `json:"settle_deadline,omitempty"`
	LnInvoice      *struct {
		Bolt11      string    `json:"bolt11"`
		PaymentHash string    `json:"payment_hash"`
		ExpiresAt   time.Time `json:"expires_at"`
	} `json:"ln_invoice,omitempty"`
}

// Fiat is an amount asked for in a currency, at a rate (sat per unit).
type Fiat struct {
	Amount   string    `json:"amount"`
	Currency string    `json:"currency"`
	Rate     string    `json:"rate"`
	At       time.Time `json:"at"`
	Fixed    bool      `json:"fixed,omitempty"`
}

// ExchangeRate is the price of the bitcoin in a currency: Rate is sat per
// unit of the currency, a decimal string.
type ExchangeRate struct {
	Currency string    `json:"currency"`
	Rate     string    `json:"rate"`
	Sources  []string  `json:"sources"`
	At       time.Time `json:"at"`
	// Fixed is a rate the operator set by hand.
	Fixed bool `json:"fixed,omitempty"`
}

// Tag marks an invoice as a plugin's: the plugin's name, set by Hearth,
// and the value the plugin gave.
type Tag struct {
	Plugin string `json:"plugin"`
	Value  string `json:"value"`
}

// Bolt11 returns the invoice's BOLT11 string, or "".
func (i *Invoice) Bolt11() string {
	if i.LnInvoice == nil {
		return ""
	}
	return i.LnInvoice.Bolt11
}

// Payment is a payment record, as the REST API shows it.
type Payment struct {
	ID          string     `json:"id"`
	WalletID    string     `json:"wallet_id"`
	AmountMsat  int64      `json:"amount_msat"`
	FeeMsat     *int64     `json:"fee_msat,omitempty"`
	Status      string     `json:"status"`
	Ledger      string     `json:"ledger"`
	Error       *string    `json:"error,omitempty"`
	Description *string    `json:"description,omitempty"`
	PaymentTime *time.Time `json:"payment_time,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
}

// Balance is a wallet's money in msat.
type Balance struct {
	AvailableMsat int64 `json:"available_msat"`
	ReservedMsat  int64 `json:"reserved_msat"`
	ReceivedMsat  int64 `json:"received_msat"`
	SentMsat      int64 `json:"sent_msat"`
	FeesPaidMsat  int64 `json:"fees_paid_msat"`
}

// WalletInfo is the wallet the plugin is bound to.
type WalletInfo struct {
	ID      string  `json:"id"`
	Balance Balance `json:"balance"`
}

// Request is an HTTP request to one of the plugin's routes. Path is the
// part after /v1/plugins/{name}.
type Request struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Query   string            `json:"query,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
	// Caller is who called an authenticated route, nil on a public one.
	// While the plugin answers it, and holds the capability caller:act,
	// its calls (Wallet, CreateInvoice, Pay, Invoices…) act for the
	// caller: on the caller's wallet, within the caller's scopes and the
	// plugin's grant.
	Caller *Caller `json:"caller,omitempty"`
}

// Caller is the caller of an authenticated route.
type Caller struct {
	UserID   string   `json:"user_id"`
	WalletID string   `json:"wallet_id"`
	Scopes   []string `json:"scopes"`
	Admin    bool     `json:"admin,omitempty"`
}

// Response is what the plugin answers. A zero Status means 200.
type Response struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
}

// JSON returns a response with v encoded as JSON.
func JSON(status int, v any) *Response {
	b, err := json.Marshal(v)
	if err != nil {
		return &Response{Status: 500, Body: []byte(`{"error":"encoding response"}`)}
	}
	return &Response{Status: status, Headers: map[string]string{"Content-Type": "application/json"}, Body: b}
}

// Error is a refusal by the host: Code is stable ("permission_denied",
// "insufficient_funds", "not_found", "invalid", "limit", ...), Message
// says why.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// IsPermissionDenied reports whether err is the host refusing a call
// beyond the plugin's granted scopes.
func IsPermissionDenied(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Code == "permission_denied"
}
