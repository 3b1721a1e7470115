package nwc

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
)

// maxMultiPay bounds the invoices of one multi_pay_invoice.
const maxMultiPay = 50

// A payment over NWC is an ordinary payment of the connection's wallet,
// made with its delegation (so counted against its budget in the payment's
// transaction), whose idempotency key is the request event's id: a request
// a relay sends again, or a restart reads again, returns the first payment
// and never pays twice.

func payInvoice(ctx context.Context, c *call, params json.RawMessage) []reply {
	var in struct {
		Invoice  string          `json:"invoice"`
		Amount   *int64          `json:"amount"`
		Metadata json.RawMessage `json:"metadata"`
	}
	if e := decodeParams(params, &in); e != nil {
		return one(nil, e)
	}
	meta, e := metadataOf(in.Metadata)
	if e != nil {
		return one(nil, e)
	}
	return []reply{c.pay(ctx, in.Invoice, in.Amount, c.eventID, meta)}
}

func multiPayInvoice(ctx context.Context, c *call, params json.RawMessage) []reply {
	var in struct {
		Invoices []struct {
			ID      string `json:"id"`
			Invoice string `json:"invoice"`
			Amount  *int64 `json:"amount"`
		} `json:"invoices"`
	}
	if e := decodeParams(params, &in); e != nil {
		return one(nil, e)
	}
	if len(in.Invoices) == 0 || len(in.Invoices) > maxMultiPay {
		return one(nil, errorf(codeOther, "invoices must list 1 to %d invoices", maxMultiPay))
	}
	out := make([]reply, 0, len(in.Invoices))
	for i, inv := range in.Invoices {
		d := inv.ID
		if d == "" && c.p.decoder != nil {
			if dec, err := c.p.decoder.Decode(inv.Invoice); err == nil {
				d = dec.PaymentHash
			}
		}
		if len(d) > 64 {
			d = d[:64]
		}
		r := c.pay(ctx, inv.Invoice, inv.Amount, c.eventID+":"+strconv.Itoa(i), nil)
		r.d = d
		out = append(out, r)
	}
	return out
}

// pay pays invoice with the connection's delegation and answers its
// preimage and fee once it is final (waiting, for a payment in flight at
// the node, up to PayWait). The app's metadata, when it sent some, is kept
// as soon as the payment is made.
func (c *call) pay(ctx context.Context, invoice string, amount *int64, key string, meta json.RawMessage) reply {
	if invoice == "" {
		return reply{err: errorf(codeOther, "invoice is required")}
	}
	// Kept before paying where the invoice reads (so that the payment's
	// notification has it), else once the payment names its hash.
	kept := false
	if meta != nil && c.p.decoder != nil {
		if d, err := c.p.decoder.Decode(invoice); err == nil {
			if err := c.p.keepMetadata(ctx, c.conn.WalletID, "outgoing", d.PaymentHash, meta); err != nil {
				return reply{err: c.p.failed(ctx, "pay", err)}
			}
			kept = true
		}
	}
	p, err := c.c.Pay(ctx, ledger.PayRequest{Input: invoice, AmountMsat: amount, IdempotencyKey: "nwc:" + key})
	if err != nil {
		return reply{err: payError(err)}
	}
	if !kept && p.PaymentHash != nil {
		if err := c.p.keepMetadata(ctx, c.conn.WalletID, "outgoing", *p.PaymentHash, meta); err != nil {
			c.p.log.WarnContext(ctx, "nwc: keeping a payment's metadata", "err", err)
		}
	}
	return c.outcome(ctx, p)
}

// outcome answers payment p's preimage and fee once it is final (waiting,
// for a payment in flight at the node, up to PayWait).
func (c *call) outcome(ctx context.Context, p *ledger.Payment) reply {
	var err error
	deadline := time.Now().Add(c.p.cfg.PayWait)
	for wait := 50 * time.Millisecond; p.Status == ledger.StatusPending && time.Now().Before(deadline); wait = min(2*wait, time.Second) {
		select {
		case <-ctx.Done():
			return reply{err: errorf(codeInternal, "the wallet is shutting down; the payment is in flight")}
		case <-time.After(wait):
		}
		if p, err = c.again(ctx, p); err != nil {
			return reply{err: c.p.failed(ctx, "pay", err)}
		}
	}
	switch p.Status {
	case ledger.StatusSettled:
		out := map[string]any{"preimage": "", "fees_paid": int64(0)}
		if p.PaymentPreimage != nil {
			out["preimage"] = *p.PaymentPreimage
		}
		if p.FeeMsat != nil {
			out["fees_paid"] = *p.FeeMsat
		}
		return reply{result: out}
	case ledger.StatusFailed:
		reason := "the payment failed"
		if p.Error != nil {
			reason = *p.Error
		}
		return reply{err: errorf(codePaymentFailed, "%s", reason)}
	}
	return reply{err: inFlight(p)}
}

// inFlight is the answer of a payment still in flight when pay_invoice
// stops waiting: OTHER, naming its payment hash, since it may still
// settle. It is not stored, so the same request sent again waits anew.
func inFlight(p *ledger.Payment) *nwcError {
	hash := "unknown"
	if p.PaymentHash != nil {
		hash = *p.PaymentHash
	}
	e := errorf(codeOther, "the payment is still in flight and may still settle: "+
		"look it up by its payment hash %s (lookup_invoice)", hash)
	e.transient = true
	return e
}

// again reads payment p anew.
func (c *call) again(ctx context.Context, p *ledger.Payment) (*ledger.Payment, error) {
	if p.PaymentHash == nil {
		return p, nil
	}
	ps, err := c.c.Payments(ctx, ledger.Filter{PaymentHash: *p.PaymentHash, Page: store.Page{Limit: 10}})
	if err != nil {
		return nil, err
	}
	for i := range ps {
		if ps[i].ID == p.ID {
			return &ps[i], nil
		}
	}
	return p, nil
}

// payError is the NIP-47 error of a refused payment: the balance, the
// budget and the permissions by their codes; the invoice's own refusals
// (paid, expired, unpayable) PAYMENT_FAILED.
func payError(err error) *nwcError {
	e := errorOf(err)
	if f, ok := fault.As(err); ok && e.Code == codeOther && (f.Kind == fault.Unprocessable || f.Kind == fault.Conflict) {
		return errorf(codePaymentFailed, "%s", f.Reason)
	}
	return e
}
