//go:build !wasip1

package sdktest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hearthwallet/hearth/sdk"
)

// Hold invoices as the host makes them (create_hold_invoice,
// settle_hold_invoice, cancel_hold_invoice): HoldPaid plays the payer.

// callHold answers the hold invoices' host functions.
func (h *Host) callHold(op string, req []byte) (any, error) {
	var in struct {
		sdk.NewHoldInvoice
		ID       string `json:"id"`
		Preimage string `json:"preimage"`
	}
	if err := json.Unmarshal(req, &in); err != nil {
		return nil, invalid(err)
	}
	if op == "create_hold_invoice" {
		return h.createHold(in.NewHoldInvoice)
	}
	inv := h.invoice(in.ID)
	if inv == nil || !inv.Hold {
		return nil, &sdk.Error{Code: "not_found", Message: "no hold invoice " + in.ID}
	}
	if op == "cancel_hold_invoice" {
		switch inv.Status {
		case "Settled":
			return nil, &sdk.Error{Code: "invoice_state", Message: "the hold invoice is Settled"}
		case "Pending", "Accepted":
			inv.Status = "Cancelled"
		}
		return *inv, nil
	}
	raw, err := hex.DecodeString(in.Preimage)
	if sum := sha256.Sum256(raw); err != nil || len(raw) != 32 || hex.EncodeToString(sum[:]) != inv.LnInvoice.PaymentHash {
		return nil, &sdk.Error{Code: "invalid_preimage", Message: "the preimage does not hash to the invoice's payment hash"}
	}
	switch inv.Status {
	case "Settled":
		return *inv, nil
	case "Accepted":
	default:
		return nil, &sdk.Error{Code: "invoice_state", Message: "only an Accepted hold invoice can be settled; this one is " + inv.Status}
	}
	now := time.Now().UTC()
	inv.Status, inv.PaymentTime = "Settled", &now
	h.Wallet.Balance.AvailableMsat += *inv.AmountReceivedMsat
	h.Wallet.Balance.ReceivedMsat += *inv.AmountReceivedMsat
	return *inv, nil
}

// createHold makes a hold invoice.
func (h *Host) createHold(req sdk.NewHoldInvoice) (any, error) {
	if b, err := hex.DecodeString(req.PaymentHash); err != nil || len(b) != 32 {
		return nil, &sdk.Error{Code: "invalid_invoice", Message: "payment_hash must be 32 bytes, hex"}
	}
	if req.AmountMsat <= 0 {
		return nil, &sdk.Error{Code: "invalid_amount", Message: "amount_msat must be positive"}
	}
	for _, inv := range h.Invoices {
		if inv.LnInvoice != nil && inv.LnInvoice.PaymentHash == req.PaymentHash {
			return nil, &sdk.Error{Code: "payment_hash_in_use", Message: "An invoice with this payment hash exists"}
		}
	}
	h.next++
	inv := sdk.Invoice{ID: fmt.Sprintf("invoice-%d", h.next), WalletID: h.Wallet.ID, AmountMsat: &req.AmountMsat,
		Status: "Pending", Ledger: "Lightning", CreatedAt: time.Now().UTC(), Hold: true}
	if req.Description != "" {
		inv.Description = &req.Description
	}
	inv.LnInvoice = &struct {
		Bolt11      string    `json:"bolt11"`
		PaymentHash string    `json:"payment_hash"`
		ExpiresAt   time.Time `json:"expires_at"`
	}{Bolt11: fmt.Sprintf("lnbcrt-hold-%d", h.next), PaymentHash: req.PaymentHash, ExpiresAt: time.Now().Add(time.Hour)}
	h.Invoices = append(h.Invoices, inv)
	return inv, nil
}

// invoice is the plugin's invoice id, nil if none.
func (h *Host) invoice(id string) *sdk.Invoice {
	for i := range h.Invoices {
		if h.Invoices[i].ID == id {
			return &h.Invoices[i]
		}
	}
	return nil
}

// HoldPaid has a payer pay hold invoice id: it turns Accepted, to be
// settled within settleIn, and the invoice.accepted event to Deliver is
// returned.
func (h *Host) HoldPaid(id string, settleIn time.Duration) (sdk.Event, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	inv := h.invoice(id)
	if inv == nil || !inv.Hold || inv.Status != "Pending" {
		return sdk.Event{}, fmt.Errorf("sdktest: no Pending hold invoice %s", id)
	}
	now := time.Now().UTC()
	by := now.Add(settleIn)
	inv.Status, inv.AmountReceivedMsat, inv.SettleBy = "Accepted", inv.AmountMsat, &by
	data, _ := json.Marshal(inv)
	return sdk.NewEvent(sdk.InvoiceAccepted, h.Wallet.ID, id, now, data), nil
}

// Invoice returns a copy of the plugin's invoice id, nil if none.
func (h *Host) Invoice(id string) *sdk.Invoice {
	h.mu.Lock()
	defer h.mu.Unlock()
	if inv := h.invoice(id); inv != nil {
		c := *inv
		return &c
	}
	return nil
}
