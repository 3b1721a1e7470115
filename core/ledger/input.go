package ledger

import (
	"net/url"
	"strings"
)

// InputKind is what a payment input turned out to be.
type InputKind int

// The kinds of payment input.
const (
	InputBolt11 InputKind = iota + 1
)

// Input is a parsed payment input.
type Input struct {
	Kind   InputKind
	Bolt11 string
}

// maxInputLen bounds the input: a BOLT11 invoice is at most a few KiB.
const maxInputLen = 7089

// ParseInput recognises a payment input: a BOLT11 invoice, optionally
// prefixed by "lightning:", in any letter case, or a BIP21 "bitcoin:" URI
// that carries one in its lightning= parameter (api.md: it wins over the
// address). LNURL, Lightning Addresses and on-chain destinations come with
// their plugins.
func ParseInput(raw string) (Input, error) {
	s := strings.TrimSpace(raw)
	if s == "" || len(s) > maxInputLen {
		return Input{}, ErrUnsupportedInput
	}
	lower := strings.ToLower(s)
	if rest, ok := strings.CutPrefix(lower, "bitcoin:"); ok {
		return bip21Lightning(rest)
	}
	lower = strings.TrimPrefix(lower, "lightning:")
	if isBolt11(lower) {
		return Input{Kind: InputBolt11, Bolt11: lower}, nil
	}
	return Input{}, ErrUnsupportedInput
}

// bip21Lightning returns the BOLT11 invoice in the lightning= parameter of
// a BIP21 URI (the part after "bitcoin:", lower-cased).
func bip21Lightning(uri string) (Input, error) {
	_, query, _ := strings.Cut(uri, "?")
	params, err := url.ParseQuery(query)
	if err != nil {
		return Input{}, ErrUnsupportedInput
	}
	ln := strings.TrimSpace(params.Get("lightning"))
	if !isBolt11(ln) {
		return Input{}, ErrUnsupportedInput
	}
	return Input{Kind: InputBolt11, Bolt11: ln}, nil
}

// isBolt11 reports whether s, lower-cased, has a BOLT11 prefix of one of
// the networks.
func isBolt11(s string) bool {
	for _, p := range []string{"lnbc", "lntb", "lntbs", "lnbcrt", "lnsb"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
