package lnurl

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
)

// errNoAddress is a Lightning Address of this instance that is not
// registered, or not active.
var errNoAddress = fault.New(fault.Unprocessable, "unknown_ln_address", "No active Lightning Address of that name on this instance")

// ResolvePayment is the plugin's payment-input resolver (core/ledger):
// a Lightning Address or an LNURL. user@<own domain>, or an LNURL of
// this instance's own payRequest, is paid inside the instance: an invoice
// is made in the owner's wallet as the callback would, and the ledger
// settles it internally. Anything else is paid through the outside
// server's invoice, checked against its payRequest.
func (p *Plugin) ResolvePayment(ctx context.Context, walletID string, req ledger.PayRequest, estimate bool) (*ledger.Resolved, error) {
	if in := strings.ToLower(strings.TrimSpace(req.Input)); strings.HasPrefix(strings.TrimPrefix(in, "lightning:"), "lnurlw://") {
		return nil, errWithdrawLink
	}
	t, ok := parseAddress(req.Input, p.cfg.AllowPrivate)
	if !ok {
		if t, ok = parseLNURL(req.Input, p.cfg.AllowPrivate); !ok {
			return nil, ledger.ErrUnsupportedInput
		}
	}
	if req.AmountMsat == nil {
		return nil, ledger.ErrInvalidAmount.Reasonf("amount_msat is required to pay a Lightning Address or an LNURL")
	}
	amount := *req.AmountMsat
	if amount <= 0 {
		return nil, ledger.ErrInvalidAmount.Reasonf("amount_msat must be positive")
	}
	comment := ""
	if req.Comment != nil {
		comment = *req.Comment
	}
	if p.own(t) {
		return p.resolveOwn(ctx, walletID, t, amount, req.Comment, estimate)
	}
	params, err := p.client.Params(ctx, t.url)
	if err != nil {
		return nil, err
	}
	payerData, err := p.payerDataFor(ctx, walletID, params.PayerData)
	if err != nil {
		return nil, err
	}
	offer, err := p.client.Invoice(ctx, params, amount, comment, payerData)
	if err != nil {
		return nil, err
	}
	res := &ledger.Resolved{Bolt11: offer.Bolt11, AmountMsat: amount}
	if t.fromAddr {
		res.LnAddress = t.address
	} else if id := identifier(params.Metadata); id != "" {
		res.LnAddress = id
	}
	if sa := offer.SuccessAction; sa != nil {
		res.SuccessAction, _ = json.Marshal(sa)
		if sa.Tag == "aes" {
			res.Finish = func(preimage string) json.RawMessage {
				b, _ := json.Marshal(sa.Decrypt(preimage))
				return b
			}
		}
	}
	return res, nil
}

// own reports whether t is this instance's: an address at its domain,
// or an LNURL of its own payRequest route.
func (p *Plugin) own(t lnurlTarget) bool {
	if t.fromAddr {
		return t.domain == p.cfg.Domain
	}
	if t.user == "" {
		return false
	}
	return strings.EqualFold(t.url, p.cfg.PublicURL+"/.well-known/lnurlp/"+t.user)
}

// resolveOwn pays an address of this instance: the same checks as the
// callback, then its invoice in the owner's wallet (none for an estimate).
func (p *Plugin) resolveOwn(ctx context.Context, walletID string, t lnurlTarget, amount int64, comment *string, estimate bool) (*ledger.Resolved, error) {
	a, err := p.byUsername(ctx, t.user)
	if err == nil {
		err = p.walletLives(ctx, a)
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, errUnknown) {
		return nil, errNoAddress.Reasonf("No active Lightning Address %s on this instance", p.addressOf(t.user))
	}
	if err != nil {
		return nil, err
	}
	if a.WalletID == walletID {
		return nil, ledger.ErrSelfPayment.Reasonf("Cannot pay your own Lightning Address")
	}
	if err := p.checkPay(ctx, amount, comment); err != nil {
		return nil, err
	}
	addr := p.addressOf(a.Username)
	if estimate {
		return &ledger.Resolved{Internal: true, AmountMsat: amount, LnAddress: addr}, nil
	}
	payerData, err := p.payerDataFor(ctx, walletID, offeredPayerData)
	if err != nil {
		return nil, err
	}
	inv, err := p.receive(ctx, a, amount, comment, payerData)
	if err != nil {
		return nil, err
	}
	return &ledger.Resolved{Bolt11: inv.LnInvoice.Bolt11, AmountMsat: amount, LnAddress: addr}, nil
}

// identifier is the text/identifier (or text/email) entry of LUD-06
// metadata: the address an LNURL pays.
func identifier(metadata string) string {
	var meta [][]json.RawMessage
	if json.Unmarshal([]byte(metadata), &meta) != nil {
		return ""
	}
	for _, m := range meta {
		var kind, value string
		if len(m) < 2 || json.Unmarshal(m[0], &kind) != nil || json.Unmarshal(m[1], &value) != nil {
			continue
		}
		if (kind == "text/identifier" || kind == "text/email") && len(value) <= 320 {
			if _, ok := parseAddress(value, true); ok {
				return strings.ToLower(value)
			}
		}
	}
	return ""
}
