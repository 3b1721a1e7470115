package sdk

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Ops are the host functions of ABI hearth_v2, by import name.
const (
	opPing         = "ping"
	opWallet       = "wallet"
	opCreateInv    = "create_invoice"
	opPay          = "pay"
	opLnAddress    = "ln_address"
	opInvoices     = "invoices"
	opPayments     = "payments"
	opKVGet        = "kv_get"
	opKVSet        = "kv_set"
	opKVDelete     = "kv_delete"
	opKVList       = "kv_list"
	opHTTP         = "http"
	opLog          = "log"
	opConfig       = "config"
	opReceive      = "receive"
	opReceivedInv  = "received_invoice"
	opNostrSign    = "nostr_sign"
	opDelegate     = "delegate"
	opDelegation   = "delegation"
	opRevokeDeleg  = "revoke_delegation"
	opActAs        = "act_as"
	opCreateWallet = "create_wallet"
	opMetric       = "metric"
	opSend         = "send"
	opSendStatus   = "send_status"
	opEmit         = "emit"
	opRate         = "rate"
	opCreateHold   = "create_hold_invoice"
	opSettleHold   = "settle_hold_invoice"
	opCancelHold   = "cancel_hold_invoice"
	opKeysendAddr  = "keysend_address"
	eventExport    = "event"
	httpExport     = "http"
	maxHandlerName = 64
)

// HostFunctions are the host functions the SDK imports, by name: every
// one of ABI hearth_v2. A test double answers each (sdktest does).
func HostFunctions() []string {
	return []string{opPing, opWallet, opCreateInv, opPay, opLnAddress, opInvoices, opPayments,
		opKVGet, opKVSet, opKVDelete, opKVList, opHTTP, opLog, opConfig, opReceive, opReceivedInv, opNostrSign,
		opDelegate, opDelegation, opRevokeDeleg, opActAs, opCreateWallet, opMetric, opSend, opSendStatus, opEmit, opRate,
		opCreateHold, opSettleHold, opCancelHold, opKeysendAddr}
}

var (
	eventHandlers = map[string]func(Event) error{}
	httpHandler   func(*Request) *Response
)

// OnEvent registers fn for events of type typ (InvoiceSettled, ...). The
// manifest must list typ under "events". Call it from init.
func OnEvent(typ string, fn func(Event) error) { eventHandlers[typ] = fn }

// HandleHTTP registers the handler of the plugin's routes. Call it from init.
// A request to a route under /v1/plugins/{name} has the path after that
// prefix; one to a route under /.well-known/ has its full path.
func HandleHTTP(fn func(*Request) *Response) { httpHandler = fn }

// call sends req (JSON-encoded unless nil) to host function op and decodes
// its answer into resp (unless nil).
func call(op string, req, resp any) error {
	var in []byte
	if req != nil {
		var err error
		if in, err = json.Marshal(req); err != nil {
			return fmt.Errorf("encoding %s request: %w", op, err)
		}
	}
	out, err := hostCall(op, in)
	if err != nil {
		return err
	}
	if resp != nil && len(out) > 0 {
		if err := json.Unmarshal(out, resp); err != nil {
			return fmt.Errorf("decoding %s answer: %w", op, err)
		}
	}
	return nil
}

// Ping calls the host's no-op function; it measures the cost of a host call.
func Ping() error {
	_, err := hostCall(opPing, nil)
	return err
}

// WalletHandle acts on the wallet the admin bound the plugin to.
type WalletHandle struct{}

// Wallet returns the plugin's wallet.
func Wallet() WalletHandle { return WalletHandle{} }

// Info returns the wallet's id and balance (read:wallet).
func (WalletHandle) Info() (*WalletInfo, error) {
	w := new(WalletInfo)
	return w, call(opWallet, nil, w)
}

// Balance returns the wallet's balance (read:wallet).
func (h WalletHandle) Balance() (Balance, error) {
	w, err := h.Info()
	if err != nil {
		return Balance{}, err
	}
	return w.Balance, nil
}

// NewInvoice asks for an invoice.
type NewInvoice struct {
	AmountMsat int64 `json:"amount_msat"`
	// Amount and Currency, instead of AmountMsat, ask for an amount in a
	// currency ("5.50", "USD"): Hearth converts it at its rate of now and
	// keeps both on the invoice (Invoice.Fiat).
	Amount      string `json:"amount,omitempty"`
	Currency    string `json:"currency,omitempty"`
	Description string `json:"description,omitempty"`
	// Expiry in seconds; 0 for the instance's default.
	Expiry int64 `json:"expiry,omitempty"`
	// Tag, when set, is kept on the invoice as the plugin's own
	// (Invoice.Tag: plugin, value), up to 256 bytes of printable text: the
	// plugin finds its invoices again by it, among the events too.
	Tag string `json:"tag,omitempty"`
}

// CreateInvoice issues a BOLT11 invoice into the plugin's wallet
// (write:transaction).
func CreateInvoice(req NewInvoice) (*Invoice, error) {
	inv := new(Invoice)
	return inv, call(opCreateInv, req, inv)
}

// Rate is the instance's exchange rate of currency (an ISO 4217 code)
// now: sat per unit, from its rates plugin (the capability rates:read).
// Error{Code: "rates_unavailable"} when no source is fresh,
// "unknown_currency" for one the instance does not offer.
func Rate(currency string) (*ExchangeRate, error) {
	r := new(ExchangeRate)
	return r, call(opRate, map[string]string{"currency": currency}, r)
}

// Receive makes an invoice into wallet walletID, any wallet of the
// instance: a tip jar's or a shop's for each of its users
// (write:transaction and the capability wallet:receive-any). It never
// pays.
func Receive(walletID string, req NewInvoice) (*Invoice, error) {
	in := struct {
		WalletID string `json:"wallet_id"`
		NewInvoice
	}{walletID, req}
	inv := new(Invoice)
	return inv, call(opReceive, in, inv)
}

// CreateWallet makes a wallet for userID, a user who has none yet (a
// sub-wallet of its own for an app), while the plugin serves one of its
// routes for the admin (the capability wallet:create, caller:act, and the
// admin's write:wallet). A user with a wallet is Error{Code:
// "wallet_exists"}.
func CreateWallet(userID string, label *string) (*WalletInfo, error) {
	in := struct {
		UserID string  `json:"user_id"`
		Label  *string `json:"label,omitempty"`
	}{userID, label}
	w := new(WalletInfo)
	return w, call(opCreateWallet, in, w)
}

// ReceivedInvoice reads invoice id of wallet walletID, one the plugin made
// with Receive (read:transaction and wallet:read-any).
func ReceivedInvoice(walletID, id string) (*Invoice, error) {
	inv := new(Invoice)
	return inv, call(opReceivedInv, map[string]string{"wallet_id": walletID, "id": id}, inv)
}

// NostrEvent is a Nostr event (NIP-01). SignNostr takes Kind, CreatedAt
// (0 for now), Tags and Content, and returns it whole.
type NostrEvent struct {
	ID        string     `json:"id,omitempty"`
	PubKey    string     `json:"pubkey,omitempty"`
	CreatedAt int64      `json:"created_at,omitempty"`
	Kind      int        `json:"kind"`
	Tags      [][]string `json:"tags"`
	Content   string     `json:"content"`
	Sig       string     `json:"sig,omitempty"`
}

// SignNostr signs ev with the instance's Nostr key (the capability
// nostr:sign): the answer carries the instance's pubkey, the event's id
// and its signature, ready for a relay.
func SignNostr(ev NostrEvent) (*NostrEvent, error) {
	if ev.Tags == nil {
		ev.Tags = [][]string{}
	}
	out := new(NostrEvent)
	return out, call(opNostrSign, NostrEvent{CreatedAt: ev.CreatedAt, Kind: ev.Kind, Tags: ev.Tags, Content: ev.Content}, out)
}

// PayRequest asks to pay from the plugin's wallet.
type PayRequest struct {
	Input      string `json:"input"`
	AmountMsat int64  `json:"amount_msat,omitempty"`
	// IdempotencyKey makes a retry return the first payment instead of paying twice.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// Pay pays a BOLT11 invoice from the plugin's wallet (write:transaction).
func Pay(req PayRequest) (*Payment, error) {
	p := new(Payment)
	return p, call(opPay, req, p)
}

// ResolveLightningAddress asks the Lightning Address's server (LNURL-pay)
// for an invoice of amountMsat and returns its BOLT11 (write:transaction).
// The host validates the LNURL answers and the invoice amount.
func ResolveLightningAddress(address string, amountMsat int64, comment string) (string, error) {
	var out struct {
		Bolt11 string `json:"bolt11"`
	}
	err := call(opLnAddress, map[string]any{"address": address, "amount_msat": amountMsat, "comment": comment}, &out)
	return out.Bolt11, err
}

// PayLightningAddress resolves address and pays amountMsat to it.
func PayLightningAddress(address string, amountMsat int64, comment, idempotencyKey string) (*Payment, error) {
	bolt11, err := ResolveLightningAddress(address, amountMsat, comment)
	if err != nil {
		return nil, err
	}
	return Pay(PayRequest{Input: bolt11, IdempotencyKey: idempotencyKey})
}

// ListFilter selects invoices or payments of the plugin's wallet.
type ListFilter struct {
	Status string `json:"status,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Offset int    `json:"offset,omitempty"`
}

// Invoices lists the wallet's invoices, newest first (read:transaction).
func Invoices(f ListFilter) ([]Invoice, error) {
	var out []Invoice
	return out, call(opInvoices, f, &out)
}

// Payments lists the wallet's payments, newest first (read:transaction).
func Payments(f ListFilter) ([]Payment, error) {
	var out []Payment
	return out, call(opPayments, f, &out)
}

// Config decodes the plugin's configuration, as the admin set it and the
// manifest's config schema validated it, into v.
func Config(v any) error { return call(opConfig, nil, v) }

// sortedKeys is used by the test double for stable listings.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
