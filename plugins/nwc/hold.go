package nwc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
)

// Hold invoices over NIP-47 (make_hold_invoice, settle_hold_invoice,
// cancel_hold_invoice, and the hold_invoice_accepted notification): the
// ledger's hold invoices (core/ledger/hold.go) through the host's
// invoice:hold, in the connection's wallet.

func makeHoldInvoice(ctx context.Context, c *call, params json.RawMessage) []reply {
	var in struct {
		invoiceParams
		PaymentHash   string `json:"payment_hash"`
		MinCLTVExpiry *int64 `json:"min_cltv_expiry_delta"`
	}
	if e := decodeParams(params, &in); e != nil {
		return one(nil, e)
	}
	return c.made(ctx, in.invoiceParams, func(ni ledger.NewInvoice) (*ledger.Invoice, error) {
		return c.c.CreateHoldInvoice(ctx, ledger.NewHoldInvoice{NewInvoice: ni, PaymentHash: in.PaymentHash, MinFinalCLTVExpiryDelta: in.MinCLTVExpiry})
	})
}

func settleHoldInvoice(ctx context.Context, c *call, params json.RawMessage) []reply {
	var in struct {
		Preimage string `json:"preimage"`
	}
	if e := decodeParams(params, &in); e != nil {
		return one(nil, e)
	}
	raw, err := hex.DecodeString(in.Preimage)
	if err != nil || len(raw) != 32 {
		return one(nil, errorf(codeOther, "preimage must be 32 bytes of hex"))
	}
	sum := sha256.Sum256(raw)
	inv, e := heldInvoice(ctx, c, hex.EncodeToString(sum[:]))
	if e != nil {
		return one(nil, e)
	}
	if _, err := c.c.SettleHold(ctx, inv.ID, strings.ToLower(in.Preimage)); err != nil {
		return one(nil, c.p.failed(ctx, "call", err))
	}
	return one(struct{}{}, nil)
}

func cancelHoldInvoice(ctx context.Context, c *call, params json.RawMessage) []reply {
	var in struct {
		PaymentHash string `json:"payment_hash"`
	}
	if e := decodeParams(params, &in); e != nil {
		return one(nil, e)
	}
	inv, e := heldInvoice(ctx, c, strings.ToLower(in.PaymentHash))
	if e != nil {
		return one(nil, e)
	}
	if _, err := c.c.CancelHold(ctx, inv.ID); err != nil {
		return one(nil, c.p.failed(ctx, "call", err))
	}
	return one(struct{}{}, nil)
}

// heldInvoice finds the hold invoice of hash in the connection's wallet.
func heldInvoice(ctx context.Context, c *call, hash string) (*ledger.Invoice, *nwcError) {
	if b, err := hex.DecodeString(hash); err != nil || len(b) != 32 {
		return nil, errorf(codeOther, "payment_hash must be 32 bytes of hex")
	}
	invs, err := c.c.Invoices(ctx, ledger.Filter{PaymentHash: hash, Page: store.Page{Limit: 1}})
	if err != nil {
		return nil, c.p.failed(ctx, "call", err)
	}
	if len(invs) == 0 || !invs[0].Hold {
		return nil, errorf(codeNotFound, "no hold invoice of payment hash %s", hash)
	}
	return &invs[0], nil
}
