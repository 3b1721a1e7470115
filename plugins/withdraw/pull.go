package withdraw

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/lud01"
)

// PullRequest claims someone else's withdraw link into the caller's
// wallet.
type PullRequest struct {
	// Input is the link: lnurl1… (LUD-01), lnurlw://… (LUD-17) or its
	// https URL.
	Input *string `json:"input"`
	// AmountMsat is what to pull; default the link's maximum.
	AmountMsat *int64 `json:"amount_msat,omitempty"`
	// Description is the invoice's; default the link's.
	Description *string `json:"description,omitempty"`
}

// The refusals of a pull.
var (
	errNotALink   = fault.New(fault.Unprocessable, "invalid_withdraw_link", "Not an LNURL-withdraw link")
	errLinkRefuse = fault.New(fault.Unprocessable, "withdraw_refused", "The link refused")
)

// pull reads the link's withdrawRequest through the outbound guard, makes
// an invoice in the caller's wallet for the amount (default the link's
// maximum) and hands it to the link's callback. The answer is the invoice,
// Pending until the link's side pays it (202).
func (p *Plugin) pull(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	b := req.Body.(*PullRequest)
	if b.Input == nil {
		return nil, fault.Invalidf("input is required")
	}
	if p.out == nil {
		return nil, fault.New(fault.Unavailable, "unavailable", "Outbound HTTP is not configured")
	}
	u, err := linkURLOf(*b.Input, p.cfg.AllowPrivate)
	if err != nil {
		return nil, err
	}
	wr, err := p.fetchRequest(ctx, u)
	if err != nil {
		return nil, err
	}
	amount := wr.MaxWithdrawable
	if b.AmountMsat != nil {
		amount = *b.AmountMsat
	}
	if amount <= 0 || amount < wr.MinWithdrawable || amount > wr.MaxWithdrawable {
		return nil, ledger.ErrInvalidAmount.Reasonf("The link gives between %d and %d msat", wr.MinWithdrawable, wr.MaxWithdrawable)
	}
	desc := wr.DefaultDescription
	if b.Description != nil {
		desc = *b.Description
	}
	inv, err := p.host.ActFor(req.Caller).CreateInvoice(ctx, ledger.NewInvoice{AmountMsat: amount, Description: &desc})
	if err != nil {
		return nil, err
	}
	if inv.LnInvoice == nil {
		return nil, fault.New(fault.Unavailable, "unavailable", "The invoice has no BOLT11 form")
	}
	cb, err := url.Parse(wr.Callback)
	if err != nil {
		return nil, errNotALink.Reasonf("The link's callback is not a URL")
	}
	q := cb.Query()
	q.Set("k1", wr.K1)
	q.Set("pr", inv.LnInvoice.Bolt11)
	cb.RawQuery = q.Encode()
	var st Status
	if err := p.getJSON(ctx, cb.String(), &st); err != nil {
		return nil, err
	}
	if !strings.EqualFold(st.Status, "OK") {
		return nil, errLinkRefuse.Reasonf("The link refused: %s", truncate(st.Reason, 200))
	}
	return inv, nil
}

// fetchRequest reads and checks the withdrawRequest at u.
func (p *Plugin) fetchRequest(ctx context.Context, u string) (*WithdrawRequest, error) {
	var wr struct {
		WithdrawRequest
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	if err := p.getJSON(ctx, u, &wr); err != nil {
		return nil, err
	}
	switch {
	case strings.EqualFold(wr.Status, "ERROR"):
		return nil, errLinkRefuse.Reasonf("The link refused: %s", truncate(wr.Reason, 200))
	case wr.Tag != "withdrawRequest":
		return nil, errNotALink.Reasonf("Not an LNURL-withdraw link (tag %q)", truncate(wr.Tag, 40))
	case wr.Callback == "" || wr.K1 == "" || wr.MaxWithdrawable <= 0 || wr.MinWithdrawable > wr.MaxWithdrawable:
		return nil, errNotALink.Reasonf("The link's withdrawRequest lacks a callback, a k1 or its limits")
	}
	return &wr.WithdrawRequest, nil
}

// getJSON GETs u through the outbound guard and decodes its JSON answer;
// a LUD error's body ({status: ERROR, reason}) is decoded too.
func (p *Plugin) getJSON(ctx context.Context, u string, v any) error {
	resp, err := p.out.Do(ctx, nil, host.OutboundRequest{Method: http.MethodGet, URL: u, Headers: map[string]string{"Accept": "application/json"}})
	if err != nil {
		return errLinkRefuse.Reasonf("The link's server could not be reached: %s", truncate(err.Error(), 200))
	}
	if err := json.Unmarshal(resp.Body, v); err != nil {
		return errLinkRefuse.Reasonf("The link's server answered HTTP %d without JSON", resp.Status)
	}
	return nil
}

// linkURLOf reads a link given as lnurl1… (bech32), lnurlw://… (LUD-17:
// https, or http when private hosts are allowed) or an https URL.
func linkURLOf(s string, private bool) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) > 2048 {
		return "", errNotALink
	}
	if strings.HasPrefix(strings.ToLower(s), "lightning:") {
		s = s[len("lightning:"):]
	}
	lower := strings.ToLower(s)
	raw := s
	switch {
	case strings.HasPrefix(lower, "lnurl1"):
		u, err := lud01.Decode(lower)
		if err != nil {
			return "", errNotALink.Reasonf("Not a valid bech32 LNURL")
		}
		raw = u
	case strings.HasPrefix(lower, "lnurlw://"):
		raw = "https://" + s[len("lnurlw://"):]
		if private {
			raw = "http://" + s[len("lnurlw://"):]
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || !(u.Scheme == "https" || (private && u.Scheme == "http")) {
		return "", errNotALink.Reasonf("A link is lnurl1…, lnurlw://… or an https URL")
	}
	return u.String(), nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
