package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hearthwallet/hearth/core/store"
)

// What a payment pays: its target, resolved from the request's input — a
// BOLT11 invoice, this instance's own (found by its text, or recalled:
// recent.go) or another node's, or whatever a Resolver makes of any
// other input (resolve.go).

// target is a resolved payment: what to pay, how much, and whether the
// invoice is this instance's own.
type target struct {
	bolt11   string
	decoded  *DecodedInvoice
	amount   int64
	internal *Invoice
	// recalled says internal came from the recent invoices (recent.go),
	// not from the database.
	recalled bool
	// inside is an estimate's payment inside the instance, with no
	// invoice yet (a Resolver's answer).
	inside bool
	// lnAddress and successAction are kept on the record; finish makes
	// the success action of a settled payment (Resolved.Finish).
	lnAddress     *string
	successAction *string
	finish        func(preimage string) json.RawMessage
	// onchain is an on-chain destination (spend.go); btcAddress the
	// deposit address an internal payment paid.
	onchain    *OnchainTarget
	btcAddress *string
	// keysend is the node a keysend pays (keysend.go), by its key.
	keysend string
}

// resolve finds what req pays: a BOLT11 invoice, or what a Resolver
// makes of any other input.
func (s *Service) resolve(ctx context.Context, walletID string, req PayRequest, estimate bool) (*target, error) {
	in, err := ParseInput(req.Input)
	if pubkey, ok := nodePubkey(req.Input); err != nil && ok {
		return s.resolveKeysend(ctx, pubkey, req)
	}
	if err != nil {
		return s.resolveOther(ctx, walletID, req, estimate, err)
	}
	// An estimate says what paying would do now: from the database.
	return s.resolveBolt11(ctx, walletID, in, req, !estimate)
}

// resolveBolt11 finds what paying the BOLT11 invoice in means; with
// recall, an invoice this process issued lately is taken from what it
// remembers (recent.go) instead of the database.
func (s *Service) resolveBolt11(ctx context.Context, walletID string, in Input, req PayRequest, recall bool) (*target, error) {
	// An invoice this instance issued is found by its exact text: having
	// stored it when the node signed it is proof enough, so the signature
	// is not checked again (the costliest part of decoding). One this
	// process issued lately is not even read (recent.go).
	var inv *Invoice
	if recall {
		inv = s.recent.recall(in.Bolt11, s.now())
	}
	recalled := inv != nil
	var err error
	if !recalled {
		if inv, err = s.invoiceByBolt11(ctx, in.Bolt11); err != nil {
			return nil, err
		}
	}
	var dec *DecodedInvoice
	if inv != nil {
		dec = inv.decoded()
	} else {
		if dec, err = s.node.Decode(in.Bolt11); err != nil {
			return nil, BadInvoice(err)
		}
		// The same invoice written differently (another letter case
		// before ParseInput, say) is still found by its payment hash.
		inv, err = s.invoiceWhere(ctx, "payment_hash = ?", dec.PaymentHash)
		if err != nil {
			return nil, err
		}
		if inv != nil && inv.PayeePubkey != dec.PayeePubkey {
			inv = nil // same hash, another node: not ours
		}
	}
	t := &target{bolt11: in.Bolt11, decoded: dec, amount: dec.AmountMsat}
	switch {
	case dec.AmountMsat > 0 && req.asked != nil:
		return nil, ErrAmountMismatch.Reasonf("The invoice names its amount (%d msat): an amount in a currency is for an input without one", dec.AmountMsat)
	case dec.AmountMsat > 0 && req.AmountMsat != nil && *req.AmountMsat != dec.AmountMsat:
		return nil, ErrAmountMismatch.Reasonf("amount_msat %d differs from the invoice amount %d", *req.AmountMsat, dec.AmountMsat)
	case dec.AmountMsat == 0 && req.AmountMsat == nil:
		return nil, ErrInvalidAmount.Reasonf("amount_msat is required for an invoice without an amount")
	case dec.AmountMsat == 0:
		t.amount = *req.AmountMsat
	}
	if t.amount <= 0 {
		return nil, ErrInvalidAmount.Reasonf("amount_msat must be positive")
	}
	if !s.now().Before(dec.ExpiresAt) {
		return nil, ErrInvoiceExpired
	}
	if inv == nil {
		return t, nil
	}
	switch {
	case inv.WalletID == walletID:
		return nil, ErrSelfPayment
	case inv.Status == StatusSettled, inv.Status == StatusAccepted:
		return nil, ErrInvoicePaid
	case inv.Status == StatusCancelled:
		return nil, ErrInvoiceCancelled
	case !s.now().Before(inv.ExpiresAt):
		return nil, ErrInvoiceExpired
	case inv.AmountMsat != nil && t.amount != *inv.AmountMsat:
		return nil, ErrAmountMismatch.Reasonf("amount_msat %d differs from the invoice amount %d", t.amount, *inv.AmountMsat)
	}
	t.internal, t.recalled = inv, recalled
	return t, nil
}

// invoiceOfBolt11 reads the invoice whose text is its one argument.
var invoiceOfBolt11 = store.NewHot("SELECT * FROM invoices WHERE bolt11 = ?")

// invoiceByBolt11 returns the invoice whose text is bolt11, or nil when
// there is none.
func (s *Service) invoiceByBolt11(ctx context.Context, bolt11 string) (*Invoice, error) {
	inv := new(Invoice)
	return foundInvoice(inv, s.db.QueryRow(ctx, s.db.R, invoiceOfBolt11, []any{inv}, bolt11))
}

// invoiceWhere returns the invoice matching where, or nil when there is none.
func (s *Service) invoiceWhere(ctx context.Context, where string, arg any) (*Invoice, error) {
	inv := new(Invoice)
	return foundInvoice(inv, s.db.R.NewSelect().Model(inv).Where(where, arg).Limit(1).Scan(ctx))
}

// foundInvoice is inv, read with the answer err: nil if no row was found.
func foundInvoice(inv *Invoice, err error) (*Invoice, error) {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("looking up invoice: %w", err)
	}
	return inv, nil
}
