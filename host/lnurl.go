package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Decoder parses BOLT11 invoices (the node does).
type Decoder interface {
	Decode(bolt11 string) (*ledger.DecodedInvoice, error)
}

// LNURL resolves Lightning Addresses (LUD-16) to invoices through LNURL-pay
// (LUD-06), over the outbound guard.
type LNURL struct {
	out *Outbound
	dec Decoder
	// scheme is https; http only when private addresses are allowed (tests).
	scheme string
}

// NewLNURL returns the client.
func NewLNURL(out *Outbound, dec Decoder) *LNURL {
	scheme := "https"
	if out.cfg.AllowPrivate {
		scheme = "http"
	}
	return &LNURL{out: out, dec: dec, scheme: scheme}
}

var (
	lnUserRE   = regexp.MustCompile(`^[a-z0-9._+-]{1,64}$`)
	lnDomainRE = regexp.MustCompile(`^[a-z0-9.-]{1,253}(:[0-9]{1,5})?$`)
)

// payParams is a LUD-06 payRequest.
type payParams struct {
	Tag            string `json:"tag"`
	Callback       string `json:"callback"`
	MinSendable    int64  `json:"minSendable"`
	MaxSendable    int64  `json:"maxSendable"`
	Metadata       string `json:"metadata"`
	CommentAllowed int    `json:"commentAllowed"`
	Status         string `json:"status"`
	Reason         string `json:"reason"`
}

// payAnswer is the callback's answer.
type payAnswer struct {
	PR     string `json:"pr"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

func lnurlError(format string, args ...any) *CallError {
	return callErrorf("lnurl", format, args...)
}

// Resolve returns a BOLT11 invoice of amountMsat for address.
func (l *LNURL) Resolve(ctx context.Context, address string, amountMsat int64, comment string) (string, error) {
	user, domain, ok := strings.Cut(strings.ToLower(strings.TrimSpace(address)), "@")
	if !ok || !lnUserRE.MatchString(user) || !lnDomainRE.MatchString(domain) {
		return "", callErrorf("invalid", "%q is not a Lightning Address", address)
	}
	if amountMsat <= 0 {
		return "", callErrorf("invalid", "amount_msat must be positive")
	}
	resp, err := l.out.Do(ctx, nil, OutboundRequest{Method: "GET", URL: l.scheme + "://" + domain + "/.well-known/lnurlp/" + user})
	if err != nil {
		return "", err
	}
	params, err := parsePayParams(resp.Status, resp.Body)
	if err != nil {
		return "", err
	}
	if amountMsat < params.MinSendable || amountMsat > params.MaxSendable {
		return "", lnurlError("amount %d msat is outside %d..%d", amountMsat, params.MinSendable, params.MaxSendable)
	}
	cb, err := url.Parse(params.Callback)
	if err != nil || (cb.Scheme != l.scheme && cb.Scheme != "https") || cb.Host == "" {
		return "", lnurlError("bad callback URL")
	}
	q := cb.Query()
	q.Set("amount", strconv.FormatInt(amountMsat, 10))
	if comment != "" && params.CommentAllowed > 0 {
		if len(comment) > params.CommentAllowed {
			comment = comment[:params.CommentAllowed]
		}
		q.Set("comment", comment)
	}
	cb.RawQuery = q.Encode()
	resp, err = l.out.Do(ctx, nil, OutboundRequest{Method: "GET", URL: cb.String()})
	if err != nil {
		return "", err
	}
	pr, err := parsePayAnswer(resp.Status, resp.Body)
	if err != nil {
		return "", err
	}
	inv, err := l.dec.Decode(pr)
	if err != nil {
		return "", lnurlError("the server's invoice does not decode: %v", err)
	}
	if inv.AmountMsat != amountMsat {
		return "", lnurlError("the server's invoice is for %d msat, not %d", inv.AmountMsat, amountMsat)
	}
	sum := sha256.Sum256([]byte(params.Metadata))
	if inv.DescriptionHash != hex.EncodeToString(sum[:]) {
		return "", lnurlError("the server's invoice does not commit to its metadata")
	}
	return pr, nil
}

// parsePayParams decodes and checks a LUD-06 payRequest.
func parsePayParams(status int, body []byte) (*payParams, error) {
	var p payParams
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, lnurlError("the server's answer (HTTP %d) is not JSON", status)
	}
	if strings.EqualFold(p.Status, "ERROR") {
		return nil, lnurlError("the server refused: %s", truncate(p.Reason, 200))
	}
	switch {
	case status != 200:
		return nil, lnurlError("the server answered HTTP %d", status)
	case p.Tag != "payRequest":
		return nil, lnurlError("not a payRequest (tag %q)", truncate(p.Tag, 40))
	case p.MinSendable <= 0 || p.MaxSendable < p.MinSendable:
		return nil, lnurlError("bad sendable range %d..%d", p.MinSendable, p.MaxSendable)
	case p.Callback == "" || p.Metadata == "":
		return nil, lnurlError("callback or metadata missing")
	}
	var meta [][]any
	if err := json.Unmarshal([]byte(p.Metadata), &meta); err != nil {
		return nil, lnurlError("metadata is not a JSON array of entries")
	}
	return &p, nil
}

// parsePayAnswer decodes the callback's answer and returns its invoice.
func parsePayAnswer(status int, body []byte) (string, error) {
	var a payAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return "", lnurlError("the callback's answer (HTTP %d) is not JSON", status)
	}
	if strings.EqualFold(a.Status, "ERROR") {
		return "", lnurlError("the server refused: %s", truncate(a.Reason, 200))
	}
	if status != 200 || a.PR == "" {
		return "", lnurlError("the callback gave no invoice (HTTP %d)", status)
	}
	if len(a.PR) > 7089 {
		return "", lnurlError("invoice too long")
	}
	return a.PR, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
