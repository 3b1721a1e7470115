//go:build !wasip1

// Package sdktest is a native test double of the Hearth host, so that
// plugin authors unit-test their plugins with plain go test: it keeps a
// wallet, invoices, payments, a key-value store, a config and logs in
// memory, answers outbound HTTP with a function of the test's choosing,
// and can refuse any call as a permission error.
//
// The SDK has one host per process, so tests that use sdktest must not
// run in parallel with each other.
package sdktest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/sdk"
)

// Host is the test double.
type Host struct {
	mu sync.Mutex
	// Wallet is the plugin's wallet; Pay and CreateInvoice move its balance.
	Wallet   sdk.WalletInfo
	Invoices []sdk.Invoice
	Payments []sdk.Payment
	KV       map[string][]byte
	// ConfigJSON is what sdk.Config decodes.
	ConfigJSON []byte
	Logs       []string
	// Deny lists host functions ("pay", "http", ...) to refuse as
	// permission_denied, as a host would for scopes not granted.
	Deny map[string]bool
	// HTTP answers outbound requests; nil refuses them.
	HTTP func(sdk.OutboundRequest) (*sdk.OutboundResponse, error)
	// Resolve answers Lightning Address lookups; nil returns a fake invoice.
	Resolve func(address string, amountMsat int64) (string, error)
	// Calls counts calls by host function.
	Calls map[string]int
	// Metrics holds what the plugin counted, by name: a counter's sum, a
	// gauge's last value.
	Metrics map[string]float64
	// Delegations are those the plugin holds (Delegate), by id; a revoked
	// one is gone.
	Delegations map[string]*sdk.Delegation
	// Received are the invoices Receive made into other wallets.
	Received []sdk.Invoice
	// Sent are the requests handed to the durable sender (sdk.Send), once
	// per key; SendStatus, when set, decides what became of each (else
	// delivered).
	Sent       []sdk.SendRequest
	SendStatus func(sdk.SendRequest) string
	// Emitted are the events the plugin added to the outbox (sdk.Emit).
	Emitted []sdk.Emitted
	// Rates are the exchange rates rate answers and invoices asked for in
	// a currency are converted at: sat per unit, by currency code.
	Rates map[string]string
	next  int
	// amounts remembers the amount of each invoice handed out, so that
	// paying it debits that amount.
	amounts map[string]int64
}

// New installs and returns a fresh host with an empty wallet "wallet-1".
func New() *Host {
	h := &Host{Wallet: sdk.WalletInfo{ID: "wallet-1"}, KV: map[string][]byte{}, ConfigJSON: []byte("{}"),
		Deny: map[string]bool{}, Calls: map[string]int{}, Metrics: map[string]float64{},
		Delegations: map[string]*sdk.Delegation{}, amounts: map[string]int64{}, Rates: map[string]string{}}
	sdk.SetHost(h)
	return h
}

// Deliver runs the plugin's handler for e, as the host would after commit.
func (h *Host) Deliver(e sdk.Event) error {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	out := sdk.DeliverEvent(sdk.EncodeEvent(e))
	if len(out) == 0 {
		return nil
	}
	var r struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return err
	}
	return fmt.Errorf("%s", r.Error)
}

// Fire runs the plugin's handler of timer name, as the host would when it
// is due at dueAt.
func (h *Host) Fire(name string, dueAt time.Time) error {
	data, _ := json.Marshal(sdk.Timer{Name: name, DueAt: dueAt.UTC()})
	return h.Deliver(sdk.NewEvent(sdk.TimerEvent, h.Wallet.ID, name, dueAt, data))
}

// SettledInvoice returns an invoice.settled event for an invoice of msat.
func (h *Host) SettledInvoice(id string, msat int64) sdk.Event {
	now := time.Now().UTC()
	data, _ := json.Marshal(sdk.Invoice{ID: id, WalletID: h.Wallet.ID, AmountMsat: &msat, AmountReceivedMsat: &msat,
		Status: "Settled", Ledger: "Internal", PaymentTime: &now, CreatedAt: now})
	return sdk.NewEvent(sdk.InvoiceSettled, h.Wallet.ID, id, now, data)
}

// Serve runs the plugin's HTTP handler on r.
func (h *Host) Serve(r sdk.Request) (*sdk.Response, error) {
	in, _ := json.Marshal(r)
	var resp sdk.Response
	if err := json.Unmarshal(sdk.ServeRequest(in), &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// Call implements sdk.Host.
func (h *Host) Call(op string, req []byte) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Calls[op]++
	if h.Deny[op] {
		return nil, &sdk.Error{Code: "permission_denied", Message: op + ": not granted"}
	}
	v, err := h.call(op, req)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

func invalid(err error) error { return &sdk.Error{Code: "invalid", Message: err.Error()} }

func (h *Host) call(op string, req []byte) (any, error) {
	switch op {
	case "ping":
		return nil, nil
	case "wallet":
		return h.Wallet, nil
	case "config":
		return json.RawMessage(h.ConfigJSON), nil
	case "log":
		var in struct{ Level, Msg string }
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		h.Logs = append(h.Logs, in.Level+": "+in.Msg)
		return nil, nil
	case "create_invoice":
		var in sdk.NewInvoice
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		priced, err := h.priced(&in)
		if err != nil {
			return nil, err
		}
		if in.AmountMsat <= 0 {
			return nil, &sdk.Error{Code: "invalid_amount", Message: "amount_msat must be positive"}
		}
		h.next++
		inv := sdk.Invoice{ID: fmt.Sprintf("invoice-%d", h.next), WalletID: h.Wallet.ID, AmountMsat: &in.AmountMsat,
			Status: "Pending", Ledger: "Lightning", CreatedAt: time.Now().UTC(), Fiat: priced}
		inv.LnInvoice = &struct {
			Bolt11      string    `json:"bolt11"`
			PaymentHash string    `json:"payment_hash"`
			ExpiresAt   time.Time `json:"expires_at"`
		}{Bolt11: fmt.Sprintf("lnbcrt-test-%d", h.next), PaymentHash: fmt.Sprintf("%064d", h.next), ExpiresAt: time.Now().Add(time.Hour)}
		h.Invoices = append(h.Invoices, inv)
		h.amounts[inv.LnInvoice.Bolt11] = in.AmountMsat
		return inv, nil
	case "pay":
		var in sdk.PayRequest
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		amount := in.AmountMsat
		if amount == 0 {
			amount = h.amounts[in.Input]
		}
		if amount <= 0 {
			return nil, &sdk.Error{Code: "invalid_amount", Message: "amount_msat is required for an invoice without an amount"}
		}
		if h.Wallet.Balance.AvailableMsat < amount {
			return nil, &sdk.Error{Code: "insufficient_funds", Message: "Insufficient funds"}
		}
		h.Wallet.Balance.AvailableMsat -= amount
		h.Wallet.Balance.SentMsat += amount
		h.next++
		p := sdk.Payment{ID: fmt.Sprintf("payment-%d", h.next), WalletID: h.Wallet.ID, AmountMsat: amount,
			Status: "Settled", Ledger: "Internal", CreatedAt: time.Now().UTC()}
		h.Payments = append(h.Payments, p)
		return p, nil
	case "ln_address":
		var in struct {
			Address    string `json:"address"`
			AmountMsat int64  `json:"amount_msat"`
		}
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		bolt11 := "lnbcrt-to-" + in.Address
		if h.Resolve != nil {
			var err error
			if bolt11, err = h.Resolve(in.Address, in.AmountMsat); err != nil {
				return nil, err
			}
		}
		h.amounts[bolt11] = in.AmountMsat
		return map[string]string{"bolt11": bolt11}, nil
	case "invoices":
		return h.Invoices, nil
	case "payments":
		return h.Payments, nil
	case "kv_get":
		var in struct{ Key string }
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		v, ok := h.KV[in.Key]
		return map[string]any{"value": v, "found": ok}, nil
	case "kv_set":
		var in struct {
			Key   string
			Value []byte
		}
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		h.KV[in.Key] = in.Value
		return nil, nil
	case "kv_delete":
		var in struct{ Key string }
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		delete(h.KV, in.Key)
		return nil, nil
	case "kv_list":
		var in struct {
			Prefix, After string
			Limit         int
		}
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		if in.Limit <= 0 || in.Limit > sdk.MaxListPage {
			in.Limit = sdk.MaxListPage
		}
		keys := []string{}
		for k := range h.KV {
			if strings.HasPrefix(k, in.Prefix) && k > in.After {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		return keys[:min(len(keys), in.Limit)], nil
	case "metric":
		var in struct {
			Name     string
			Add, Set *float64
		}
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		switch {
		case in.Set != nil:
			h.Metrics[in.Name] = *in.Set
		case in.Add != nil:
			h.Metrics[in.Name] += *in.Add
		default:
			h.Metrics[in.Name]++
		}
		return nil, nil
	case "http":
		var in sdk.OutboundRequest
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		if h.HTTP == nil {
			return nil, &sdk.Error{Code: "permission_denied", Message: "no outbound HTTP in this test"}
		}
		return h.HTTP(in)
	case "rate":
		return h.callRate(req)
	case "create_hold_invoice", "settle_hold_invoice", "cancel_hold_invoice":
		return h.callHold(op, req)
	case "keysend_address":
		var in struct {
			WalletID string `json:"wallet_id"`
		}
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		if in.WalletID == "" {
			in.WalletID = h.Wallet.ID
		}
		return sdk.KeysendAddress{Pubkey: KeysendPubkey, CustomKey: "696969", CustomValue: "ks-" + in.WalletID}, nil
	case "emit":
		var in sdk.Emitted
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		if in.Type == "" || in.WalletID == "" || in.SubjectID == "" {
			return nil, &sdk.Error{Code: "invalid", Message: "emit: type, wallet_id and subject_id are required"}
		}
		h.Emitted = append(h.Emitted, in)
		return nil, nil
	case "create_wallet":
		var in struct {
			UserID string `json:"user_id"`
		}
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		if in.UserID == "" {
			return nil, &sdk.Error{Code: "invalid_wallet", Message: "user_id is required"}
		}
		h.next++
		return sdk.WalletInfo{ID: fmt.Sprintf("wallet-%d", h.next+1)}, nil
	}
	return h.callInstance(op, req)
}

var _ sdk.Host = (*Host)(nil)

// KeysendPubkey is the node key keysend_address answers: a wallet's
// keysend id there is "ks-" and the wallet's id.
const KeysendPubkey = "025f1c6d1a3b9e0e4f7a2c8d6b4e1f3a5c7e9b0d2f4a6c8e0b1d3f5a7c9e1b3d5f"
