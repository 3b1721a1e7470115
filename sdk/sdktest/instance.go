//go:build !wasip1

package sdktest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/sdk"
)

// TestPubKey is the instance key the double "signs" Nostr events with:
// an event's id is computed as NIP-01 says, its signature is not real
// (the double holds no key), so a relay would refuse it.
const TestPubKey = "0000000000000000000000000000000000000000000000000000000000000001"

// callInstance answers the host functions that reach past the plugin's
// own wallet: receive, received_invoice, nostr_sign and the delegations.
func (h *Host) callInstance(op string, req []byte) (any, error) {
	switch op {
	case "receive":
		var in struct {
			WalletID string `json:"wallet_id"`
			sdk.NewInvoice
		}
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		if in.WalletID == "" {
			return nil, &sdk.Error{Code: "invalid", Message: "wallet_id is required"}
		}
		inv, err := h.call("create_invoice", mustJSON(in.NewInvoice))
		if err != nil {
			return nil, err
		}
		i := inv.(sdk.Invoice)
		h.Invoices = h.Invoices[:len(h.Invoices)-1] // not the plugin's wallet's
		i.WalletID = in.WalletID
		h.Received = append(h.Received, i)
		return i, nil
	case "received_invoice":
		var in struct {
			WalletID string `json:"wallet_id"`
			ID       string `json:"id"`
		}
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		for _, i := range h.Received {
			if i.ID == in.ID && i.WalletID == in.WalletID {
				return i, nil
			}
		}
		return nil, &sdk.Error{Code: "not_found", Message: "Invoice not found"}
	case "nostr_sign":
		var ev sdk.NostrEvent
		if err := json.Unmarshal(req, &ev); err != nil {
			return nil, invalid(err)
		}
		if ev.CreatedAt == 0 {
			ev.CreatedAt = time.Now().Unix()
		}
		ev.PubKey = TestPubKey
		ser, _ := json.Marshal([]any{0, ev.PubKey, ev.CreatedAt, ev.Kind, ev.Tags, ev.Content})
		id := sha256.Sum256(ser)
		ev.ID = hex.EncodeToString(id[:])
		ev.Sig = strings.Repeat("0", 128)
		return ev, nil
	case "send", "send_status":
		return h.callSend(op, req)
	case "delegate", "delegation", "revoke_delegation", "act_as":
		return h.callDelegation(op, req)
	}
	return nil, &sdk.Error{Code: "abi", Message: "no host function " + op}
}

// callDelegation answers the delegations' host functions: a delegation
// acts on the double's wallet, within its permissions and budget.
func (h *Host) callDelegation(op string, req []byte) (any, error) {
	switch op {
	case "delegate":
		var in sdk.NewDelegation
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		h.next++
		d := &sdk.Delegation{ID: fmt.Sprintf("delegation-%d", h.next), UserID: "user-1", WalletID: h.Wallet.ID,
			Name: in.Name, Permissions: in.Permissions, ExpiresAt: in.ExpiresAt, CreatedAt: time.Now().UTC()}
		if in.Budget != nil {
			d.Budget = &sdk.Budget{MaxMsat: in.Budget.MaxMsat, Renewal: in.Budget.Renewal}
		}
		h.Delegations[d.ID] = d
		return d, nil
	}
	var in struct {
		ID  string          `json:"id"`
		Op  string          `json:"op"`
		Req json.RawMessage `json:"req"`
	}
	if err := json.Unmarshal(req, &in); err != nil {
		return nil, invalid(err)
	}
	d := h.Delegations[in.ID]
	if d == nil {
		return nil, &sdk.Error{Code: "not_found", Message: "Delegation not found"}
	}
	switch op {
	case "delegation":
		return d, nil
	case "revoke_delegation":
		delete(h.Delegations, in.ID)
		return nil, nil
	}
	need := map[string]string{"wallet": "read:wallet", "invoices": "read:transaction", "payments": "read:transaction",
		"create_invoice": "write:transaction", "pay": "write:transaction"}[in.Op]
	if need == "" {
		return nil, &sdk.Error{Code: "invalid", Message: "act_as: op " + in.Op}
	}
	held := false
	for _, p := range d.Permissions {
		held = held || p == need
	}
	if !held {
		return nil, &sdk.Error{Code: "permission_denied", Message: in.Op + ": the delegation lacks " + need}
	}
	if in.Op != "pay" || d.Budget == nil {
		return h.call(in.Op, in.Req)
	}
	before := h.Wallet.Balance.SentMsat
	v, err := h.call("pay", in.Req)
	if err != nil {
		return nil, err
	}
	spent := h.Wallet.Balance.SentMsat - before
	if d.Budget.UsedMsat+spent > d.Budget.MaxMsat {
		// Undo: the host checks the budget before it pays.
		h.Wallet.Balance.SentMsat, h.Wallet.Balance.AvailableMsat = before, h.Wallet.Balance.AvailableMsat+spent
		h.Payments = h.Payments[:len(h.Payments)-1]
		return nil, &sdk.Error{Code: "budget_exceeded", Message: "Payment would exceed the budget of this credential"}
	}
	d.Budget.UsedMsat += spent
	return v, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// callSend answers send and send_status: a send is delivered at once (or
// as SendStatus says), and a key sent again returns the first.
func (h *Host) callSend(op string, req []byte) (any, error) {
	status := func(i int) sdk.SendStatus {
		r := h.Sent[i]
		st := sdk.SendStatus{ID: fmt.Sprintf("send-%d", i+1), State: "delivered", Attempts: 1, CreatedAt: time.Now().UTC()}
		if h.SendStatus != nil {
			st.State = h.SendStatus(r)
		}
		return st
	}
	if op == "send_status" {
		var in struct{ ID string }
		if err := json.Unmarshal(req, &in); err != nil {
			return nil, invalid(err)
		}
		var i int
		if _, err := fmt.Sscanf(in.ID, "send-%d", &i); err != nil || i < 1 || i > len(h.Sent) {
			return nil, &sdk.Error{Code: "not_found", Message: "no send " + in.ID}
		}
		return status(i - 1), nil
	}
	var in sdk.SendRequest
	if err := json.Unmarshal(req, &in); err != nil {
		return nil, invalid(err)
	}
	if !strings.HasPrefix(in.URL, "https://") && !strings.HasPrefix(in.URL, "http://") {
		return nil, &sdk.Error{Code: "invalid", Message: "url must be http(s)"}
	}
	if in.Key != "" {
		for i, r := range h.Sent {
			if r.Key == in.Key {
				st := status(i)
				st.Duplicate = true
				return st, nil
			}
		}
	}
	h.Sent = append(h.Sent, in)
	return status(len(h.Sent) - 1), nil
}
