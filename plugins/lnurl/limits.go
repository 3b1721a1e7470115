package lnurl

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearthwallet/hearth/lib/fiat"
)

// Limits in a currency. An operator may bound what an address receives at
// once in a currency too ([lnurl] min_sendable, max_sendable: "0.50 USD"):
// each payRequest and each callback converts them at the instance's rate
// of the moment (rates:read) and narrows the limits in msat with them.
// Without a fresh rate, the limits in msat alone hold.

// parseLimit reads a limit in a currency: an amount and a currency code,
// "0.50 USD".
func parseLimit(s string) (amount, currency string, err error) {
	amount, cur, ok := strings.Cut(strings.TrimSpace(s), " ")
	code, valid := fiat.Currency(cur)
	if _, perr := fiat.ParseAmount(amount); !ok || !valid || perr != nil {
		return "", "", fmt.Errorf("%q is no amount in a currency, such as \"0.50 USD\"", s)
	}
	return amount, code, nil
}

// limits are the least and most an address receives at once now, in msat.
func (p *Plugin) limits(ctx context.Context) (lo, hi int64) {
	lo, hi = p.cfg.MinSendableMsat, p.cfg.MaxSendableMsat
	if p.cfg.MinSendable == "" && p.cfg.MaxSendable == "" {
		return lo, hi
	}
	if m, ok := p.inMsat(ctx, p.cfg.MinSendable); ok && m > lo {
		lo = m
	}
	if m, ok := p.inMsat(ctx, p.cfg.MaxSendable); ok && m < hi {
		hi = m
	}
	if lo > hi { // the rate moved past what the limits in msat allow: they hold
		p.log.Warn("the Lightning Address limits in a currency fall outside those in msat at today's rate; the limits in msat hold",
			"min_sendable", p.cfg.MinSendable, "max_sendable", p.cfg.MaxSendable)
		return p.cfg.MinSendableMsat, p.cfg.MaxSendableMsat
	}
	return lo, hi
}

// inMsat converts limit at the rate of now; false for no limit or no
// fresh rate.
func (p *Plugin) inMsat(ctx context.Context, limit string) (int64, bool) {
	if limit == "" || p.host == nil {
		return 0, false
	}
	amount, currency, err := parseLimit(limit)
	if err != nil {
		return 0, false
	}
	r, err := p.host.ExchangeRate(ctx, currency)
	if err != nil {
		p.log.Warn("no rate for the Lightning Address limits in a currency; the limits in msat hold", "currency", currency, "err", err)
		return 0, false
	}
	msat, err := fiat.Msat(amount, r.Rate)
	if err != nil {
		return 0, false
	}
	return msat, true
}
