package nwc

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
)

// transaction is NIP-47's record of an invoice ("incoming") or a payment
// ("outgoing").
type transaction struct {
	Type            string `json:"type"`
	State           string `json:"state"`
	Invoice         string `json:"invoice,omitempty"`
	Description     string `json:"description,omitempty"`
	DescriptionHash string `json:"description_hash,omitempty"`
	Preimage        string `json:"preimage,omitempty"`
	PaymentHash     string `json:"payment_hash"`
	Amount          int64  `json:"amount"`
	FeesPaid        int64  `json:"fees_paid"`
	CreatedAt       int64  `json:"created_at"`
	ExpiresAt       *int64 `json:"expires_at,omitempty"`
	SettledAt       *int64 `json:"settled_at,omitempty"`
	Metadata        any    `json:"metadata,omitempty"`
	// SettleDeadline is the block height by which an accepted hold
	// invoice must be settled (Alby's extension), when the node said it.
	SettleDeadline *int64 `json:"settle_deadline,omitempty"`
	sortAt         time.Time
}

// NIP-47's states of a transaction.
func stateOf(status string) string {
	switch status {
	case ledger.StatusSettled:
		return "settled"
	case ledger.StatusExpired:
		return "expired"
	case ledger.StatusFailed, ledger.StatusCancelled:
		return "failed"
	case ledger.StatusAccepted:
		return "accepted"
	}
	return "pending"
}

func unix(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	u := t.Unix()
	return &u
}

func incoming(inv *ledger.Invoice) *transaction {
	t := &transaction{Type: "incoming", State: stateOf(inv.Status), Invoice: inv.Bolt11, PaymentHash: inv.PaymentHash,
		CreatedAt: inv.CreatedAt.Unix(), SettledAt: unix(inv.PaymentTime), sortAt: inv.CreatedAt}
	if inv.Ledger != ledger.LedgerOnchain {
		t.ExpiresAt = unix(&inv.ExpiresAt)
	}
	if inv.Description != nil {
		t.Description = *inv.Description
	}
	if inv.DescriptionHash != nil {
		t.DescriptionHash = *inv.DescriptionHash
	}
	switch {
	case inv.AmountReceivedMsat != nil:
		t.Amount = *inv.AmountReceivedMsat
	case inv.AmountMsat != nil:
		t.Amount = *inv.AmountMsat
	}
	if inv.Status == ledger.StatusSettled && inv.PaymentPreimage != nil {
		t.Preimage = *inv.PaymentPreimage
	}
	t.SettleDeadline = inv.SettleDeadline
	return t
}

func outgoing(p *ledger.Payment) *transaction {
	t := &transaction{Type: "outgoing", State: stateOf(p.Status), Amount: p.AmountMsat,
		CreatedAt: p.CreatedAt.Unix(), SettledAt: unix(p.PaymentTime), sortAt: p.CreatedAt}
	if p.Bolt11 != nil {
		t.Invoice = *p.Bolt11
	}
	if p.PaymentHash != nil {
		t.PaymentHash = *p.PaymentHash
	}
	if p.Description != nil {
		t.Description = *p.Description
	}
	if p.FeeMsat != nil {
		t.FeesPaid = *p.FeeMsat
	}
	if p.Status == ledger.StatusSettled && p.PaymentPreimage != nil {
		t.Preimage = *p.PaymentPreimage
	}
	return t
}

// invoiceParams are make_invoice's params, and make_hold_invoice's.
type invoiceParams struct {
	Amount          int64           `json:"amount"`
	Description     string          `json:"description"`
	DescriptionHash string          `json:"description_hash"`
	Expiry          int64           `json:"expiry"`
	Metadata        json.RawMessage `json:"metadata"`
}

func makeInvoice(ctx context.Context, c *call, params json.RawMessage) []reply {
	var in invoiceParams
	if e := decodeParams(params, &in); e != nil {
		return one(nil, e)
	}
	return c.made(ctx, in, func(ni ledger.NewInvoice) (*ledger.Invoice, error) { return c.c.CreateInvoice(ctx, ni) })
}

// made answers the invoice create makes of in, keeping the app's
// metadata with it.
func (c *call) made(ctx context.Context, in invoiceParams, create func(ledger.NewInvoice) (*ledger.Invoice, error)) []reply {
	meta, e := metadataOf(in.Metadata)
	if e != nil {
		return one(nil, e)
	}
	ni, e := newInvoice(c, in.Amount, in.Description, in.DescriptionHash, in.Expiry)
	if e != nil {
		return one(nil, e)
	}
	inv, err := create(ni)
	if err != nil {
		return one(nil, c.p.failed(ctx, "call", err))
	}
	if err := c.p.keepMetadata(ctx, c.conn.WalletID, "incoming", inv.PaymentHash, meta); err != nil {
		return one(nil, c.p.failed(ctx, "call", err))
	}
	t := incoming(inv)
	if meta != nil {
		t.Metadata = meta
	}
	return one(t, nil)
}

// newInvoice is the ledger's request of make_invoice's (and
// make_hold_invoice's) params, tagged as the connection's.
func newInvoice(c *call, amount int64, description, descriptionHash string, expiry int64) (ledger.NewInvoice, *nwcError) {
	ni := ledger.NewInvoice{AmountMsat: amount, Tag: &ledger.Tag{Value: c.conn.ID}}
	if description != "" {
		ni.Description = &description
	}
	if descriptionHash != "" {
		h, err := hex.DecodeString(descriptionHash)
		if err != nil || len(h) != 32 {
			return ni, errorf(codeOther, "description_hash must be 32 bytes of hex")
		}
		ni.DescriptionHash = h
	}
	if expiry != 0 {
		ni.Expiry = &expiry
	}
	return ni, nil
}

func lookupInvoice(ctx context.Context, c *call, params json.RawMessage) []reply {
	var in struct {
		PaymentHash string `json:"payment_hash"`
		Invoice     string `json:"invoice"`
	}
	if e := decodeParams(params, &in); e != nil {
		return one(nil, e)
	}
	hash := in.PaymentHash
	if hash == "" && in.Invoice != "" && c.p.decoder != nil {
		if d, err := c.p.decoder.Decode(in.Invoice); err == nil {
			hash = d.PaymentHash
		}
	}
	if hash == "" {
		return one(nil, errorf(codeOther, "payment_hash or invoice is required"))
	}
	f := ledger.Filter{PaymentHash: hash, Page: store.Page{Limit: 1}}
	invs, err := c.c.Invoices(ctx, f)
	if err != nil {
		return one(nil, c.p.failed(ctx, "call", err))
	}
	var found *transaction
	if len(invs) > 0 {
		found = incoming(&invs[0])
	} else {
		ps, err := c.c.Payments(ctx, f)
		if err != nil {
			return one(nil, c.p.failed(ctx, "call", err))
		}
		if len(ps) > 0 {
			found = outgoing(&ps[0])
		}
	}
	if found != nil {
		if err := c.p.withMetadata(ctx, c.conn.WalletID, found); err != nil {
			return one(nil, c.p.failed(ctx, "call", err))
		}
		return one(found, nil)
	}
	return one(nil, errorf(codeNotFound, "no invoice or payment of this wallet has that payment hash"))
}

func listTransactions(ctx context.Context, c *call, params json.RawMessage) []reply {
	var in struct {
		From   *int64 `json:"from"`
		Until  *int64 `json:"until"`
		Limit  int    `json:"limit"`
		Offset int    `json:"offset"`
		Unpaid bool   `json:"unpaid"`
		Type   string `json:"type"`
	}
	if e := decodeParams(params, &in); e != nil {
		return one(nil, e)
	}
	if in.Limit <= 0 {
		in.Limit = 50
	}
	in.Limit = min(in.Limit, maxListed)
	if in.Offset < 0 || in.Offset > 1<<20 {
		return one(nil, errorf(codeOther, "offset must be from 0 to %d", 1<<20))
	}
	f := ledger.Filter{Page: store.Page{Limit: in.Limit + in.Offset}}
	if in.From != nil {
		t := time.Unix(*in.From, 0)
		f.From = &t
	}
	if in.Until != nil {
		t := time.Unix(*in.Until, 0).Add(time.Second - time.Nanosecond)
		f.Until = &t
	}
	if !in.Unpaid {
		f.Status = ledger.StatusSettled
	}
	var out []*transaction
	if in.Type == "" || in.Type == "incoming" {
		invs, err := c.c.Invoices(ctx, f)
		if err != nil {
			return one(nil, c.p.failed(ctx, "call", err))
		}
		for i := range invs {
			out = append(out, incoming(&invs[i]))
		}
	}
	if in.Type == "" || in.Type == "outgoing" {
		ps, err := c.c.Payments(ctx, f)
		if err != nil {
			return one(nil, c.p.failed(ctx, "call", err))
		}
		for i := range ps {
			out = append(out, outgoing(&ps[i]))
		}
	}
	slices.SortStableFunc(out, func(a, b *transaction) int { return b.sortAt.Compare(a.sortAt) })
	out = out[min(in.Offset, len(out)):]
	out = out[:min(in.Limit, len(out))]
	if err := c.p.withMetadata(ctx, c.conn.WalletID, out...); err != nil {
		return one(nil, c.p.failed(ctx, "call", err))
	}
	out = fitPage(out)
	if out == nil {
		out = []*transaction{}
	}
	total, err := totalCount(ctx, c, f, in.Type)
	if err != nil {
		return one(nil, c.p.failed(ctx, "call", err))
	}
	return one(map[string]any{"transactions": out, "total_count": total}, nil)
}
