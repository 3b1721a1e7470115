package host

import (
	"context"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
)

// InvoiceHold makes hold invoices into the plugin's wallet and settles or
// cancels them (core/ledger/hold.go): an escrow, a pay-to-unlock, a
// marketplace holds a buyer's payment until it decides.
const InvoiceHold = "invoice:hold"

// HoldLedger is what invoice:hold reaches of the ledger.
type HoldLedger interface {
	CreateHoldInvoice(ctx context.Context, walletID string, req ledger.NewHoldInvoice) (*ledger.Invoice, error)
	SettleHold(ctx context.Context, walletID, id, preimage string) (*ledger.Invoice, error)
	CancelHold(ctx context.Context, walletID, id string) (*ledger.Invoice, error)
}

// holds checks write:transaction on the wallet and invoice:hold for call
// what, and returns the ledger's hold invoices.
func (c *Caller) holds(ctx context.Context, what string) (HoldLedger, error) {
	if err := c.allow(ctx, need{scope: auth.WriteTransaction, wallet: true, what: what}); err != nil {
		return nil, err
	}
	if err := c.allowCap(ctx, InvoiceHold, what); err != nil {
		return nil, err
	}
	l, ok := c.api.ledger.(HoldLedger)
	if !ok {
		return nil, callErrorf("unavailable", "the ledger makes no hold invoices")
	}
	return l, nil
}

// CreateHoldInvoice issues a hold invoice into the plugin's wallet
// (write:transaction, invoice:hold).
func (c *Caller) CreateHoldInvoice(ctx context.Context, req ledger.NewHoldInvoice) (*ledger.Invoice, error) {
	l, err := c.holds(ctx, "create_hold_invoice")
	if err != nil {
		return nil, err
	}
	req.NewInvoice = c.tagged(req.NewInvoice)
	return l.CreateHoldInvoice(ctx, c.walletID(), req)
}

// SettleHold settles an Accepted hold invoice of the plugin's wallet with
// its preimage (write:transaction, invoice:hold).
func (c *Caller) SettleHold(ctx context.Context, id, preimage string) (*ledger.Invoice, error) {
	l, err := c.holds(ctx, "settle_hold_invoice")
	if err != nil {
		return nil, err
	}
	return l.SettleHold(ctx, c.walletID(), id, preimage)
}

// CancelHold cancels a hold invoice of the plugin's wallet
// (write:transaction, invoice:hold).
func (c *Caller) CancelHold(ctx context.Context, id string) (*ledger.Invoice, error) {
	l, err := c.holds(ctx, "cancel_hold_invoice")
	if err != nil {
		return nil, err
	}
	return l.CancelHold(ctx, c.walletID(), id)
}

// The ABI's host functions of invoice:hold (hearth_v2).
func init() {
	ops["create_hold_invoice"] = func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			invoiceReq
			PaymentHash             string `json:"payment_hash"`
			MinFinalCLTVExpiryDelta *int64 `json:"min_final_cltv_expiry_delta"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		if in.WalletID != "" {
			return nil, callErrorf("invalid", "create_hold_invoice makes invoices into the plugin's wallet")
		}
		return c.CreateHoldInvoice(ctx, ledger.NewHoldInvoice{NewInvoice: in.toNew(), PaymentHash: in.PaymentHash,
			MinFinalCLTVExpiryDelta: in.MinFinalCLTVExpiryDelta})
	}
	ops["settle_hold_invoice"] = func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			ID       string `json:"id"`
			Preimage string `json:"preimage"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return c.SettleHold(ctx, in.ID, in.Preimage)
	}
	ops["cancel_hold_invoice"] = func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			ID string `json:"id"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return c.CancelHold(ctx, in.ID)
	}
	for _, name := range []string{"create_hold_invoice", "settle_hold_invoice", "cancel_hold_invoice"} {
		v2Only[name] = true
	}
}
