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
)

// Event is something that happened in the plugin's wallet, delivered after
// the transaction that did it has committed.
type Event struct {
	Type     string    `json:"type"`
	WalletID string    `json:"wallet_id"`
	ID       string    `json:"id"`
	At       time.Time `json:"at"`
	// Data is the invoice (invoice.*) or payment (payment.*) record, as
	// JSON. It is valid only while the handler runs (it is not copied, so
	// that a handler that does not read it costs nothing): copy it to keep
	// it. Invoice and Payment decode it into fresh values.
	Data json.RawMessage `json:"data"`
}

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
	LnInvoice          *struct {
		Bolt11      string    `json:"bolt11"`
		PaymentHash string    `json:"payment_hash"`
		ExpiresAt   time.Time `json:"expires_at"`
	} `json:"ln_invoice,omitempty"`
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
