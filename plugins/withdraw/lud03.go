package withdraw

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/host"
)

// WithdrawRequest is LUD-03's answer at a link's URL.
type WithdrawRequest struct {
	Tag                string `json:"tag"`
	Callback           string `json:"callback"`
	K1                 string `json:"k1"`
	DefaultDescription string `json:"defaultDescription"`
	MinWithdrawable    int64  `json:"minWithdrawable"`
	MaxWithdrawable    int64  `json:"maxWithdrawable"`
}

// Status is the callback's answer, and the LUD error form (answered with
// a 4xx status).
type Status struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

func errorBody(_ int, reason string) any { return Status{Status: "ERROR", Reason: reason} }

// The public routes' refusals.
var (
	errBadK1      = fault.New(fault.Invalid, "invalid_k1", "This k1 is not the link's")
	errBadInvoice = fault.New(fault.Invalid, "invalid_invoice", "Invalid invoice")
	errNoFunds    = fault.New(fault.Unprocessable, "insufficient_balance", "The link's wallet cannot pay this now")
)

// publicRoutes are LUD-03's: the link's URL and its callback, for any
// LNURL wallet (any origin, rate-limited per client address).
func (p *Plugin) publicRoutes() []host.BuiltinRoute {
	lim := &host.RateLimit{Name: "withdraw", PerMinute: p.cfg.RatePerMinute, Burst: p.cfg.RateBurst}
	return []host.BuiltinRoute{
		{Method: "GET", Path: "/lnurlw/{token}", Access: host.Public, Status: http.StatusOK,
			Summary: "LUD-03: a withdraw link's withdrawRequest", Resp: WithdrawRequest{},
			AnyOrigin: true, ErrorBody: errorBody, Limit: lim, Handle: p.withdrawRequest},
		{Method: "GET", Path: "/lnurlw/{token}/callback", Access: host.Public, Status: http.StatusOK,
			Summary: "LUD-03: claim a use of a withdraw link with an invoice (k1, pr); paid at once, after the answer",
			Query:   []string{"k1", "pr"}, Resp: Status{}, AnyOrigin: true, ErrorBody: errorBody, Limit: lim, Handle: p.callback},
	}
}

// withdrawRequest answers the link's withdrawRequest while it takes uses.
func (p *Plugin) withdrawRequest(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	l, err := p.byToken(ctx, req.Params["token"])
	if err != nil {
		return nil, err
	}
	if err := l.usable(p.cfg.Now()); err != nil {
		return nil, err
	}
	return &WithdrawRequest{Tag: "withdrawRequest", Callback: p.linkURL(l) + "/callback", K1: l.K1,
		DefaultDescription: l.Title, MinWithdrawable: l.MinMsat, MaxWithdrawable: l.MaxMsat}, nil
}

// callback takes a use of the link for the invoice pr, checked first
// (amount within the link's limits, not expired, the node's network,
// a wallet that can pay it now), answers OK and pays it.
func (p *Plugin) callback(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	l, err := p.byToken(ctx, req.Params["token"])
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(req.Query.Get("k1")), []byte(l.K1)) != 1 {
		return nil, errBadK1
	}
	pr := req.Query.Get("pr")
	dec, err := p.decode.Decode(pr)
	if err != nil {
		return nil, errBadInvoice.Reasonf("Invalid invoice: %v", err)
	}
	now := p.cfg.Now().UTC()
	switch {
	case dec.AmountMsat <= 0:
		return nil, errBadInvoice.Reasonf("The invoice must name an amount")
	case dec.AmountMsat < l.MinMsat || dec.AmountMsat > l.MaxMsat:
		return nil, errBadInvoice.Reasonf("The amount must be between %d and %d msat", l.MinMsat, l.MaxMsat)
	case !dec.ExpiresAt.IsZero() && !now.Before(dec.ExpiresAt):
		return nil, errBadInvoice.Reasonf("The invoice has expired")
	}
	if err := l.usable(now); err != nil {
		return nil, err
	}
	act, err := p.host.ActAs(ctx, l.DelegationID)
	if err != nil {
		return nil, ErrNotFound.Reasonf("This link was revoked")
	}
	if w, err := act.Wallet(ctx); err != nil {
		return nil, err
	} else if w.Balance.AvailableMsat < dec.AmountMsat {
		return nil, errNoFunds
	}
	c, dup, err := p.claim(ctx, l, pr, dec, now)
	if err != nil {
		return nil, err
	}
	if dup && c.State == claimFailed {
		return nil, errRefused.Reasonf("This invoice's claim failed: %s", deref(c.Error))
	}
	if !dup && !p.cfg.PayLater {
		// Paid now, after the answer; the lead pays it if this process
		// stops first.
		go func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
			defer cancel()
			p.pay(ctx, c)
		}()
	}
	return &Status{Status: "OK"}, nil
}

// lud17 is the link's URL in LUD-17's scheme: lnurlw:// in place of
// https:// (or http://, for an onion or a test instance).
func lud17(u string) string {
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		return "lnurlw://" + rest
	}
	return "lnurlw://" + strings.TrimPrefix(u, "http://")
}

// linkURL is the link's URL (LUD-03), under the instance's public URL.
func (p *Plugin) linkURL(l *linkRow) string { return p.cfg.PublicURL + "/lnurlw/" + l.Token }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
