package ledger

import (
	"errors"
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
// prefixed by "lightning:", in lower or upper case (QR codes use upper),
// or a BIP21 "bitcoin:" URI that carries one in its lightning= parameter
// (api.md: it wins over the address). LNURL, Lightning Addresses and
// on-chain destinations come with their plugins. What is no BOLT11
// invoice is ErrUnsupportedInput, whose reason says what is wrong when
// the text meant to be one (mixed case, an unknown network).
func ParseInput(raw string) (Input, error) {
	s := strings.TrimSpace(raw)
	if s == "" || len(s) > maxInputLen {
		return Input{}, ErrUnsupportedInput
	}
	lower := strings.ToLower(s)
	if rest, ok := strings.CutPrefix(lower, "bitcoin:"); ok {
		return bip21Lightning(rest)
	}
	if len(s) > len(lightningScheme) && strings.EqualFold(s[:len(lightningScheme)], lightningScheme) {
		s = s[len(lightningScheme):]
	}
	lower = strings.ToLower(s)
	if isBolt11(lower) {
		if s != lower && s != strings.ToUpper(s) {
			return Input{}, ErrUnsupportedInput.Reasonf("not a BOLT11 invoice: it mixes upper-case and lower-case letters")
		}
		return Input{Kind: InputBolt11, Bolt11: lower}, nil
	}
	return Input{}, unsupported(lower)
}

const lightningScheme = "lightning:"

// unsupported is ErrUnsupportedInput for s, lower-cased, which is no
// BOLT11 invoice; it says why when s has the shape of one of an unknown
// network ("ln", letters, an amount, "1", data). The resolvers are asked
// before this answer is given (resolveOther): one of them may know the
// input (an LNURL is bech32 text that begins "ln" too).
func unsupported(s string) error {
	sep := strings.LastIndexByte(s, '1')
	if !strings.HasPrefix(s, "ln") || sep < len("ln") {
		return ErrUnsupportedInput
	}
	return ErrUnsupportedInput.Reasonf("not a BOLT11 invoice: its prefix %q names no network: an invoice begins with lnbc, lntb, lntbs, lnbcrt or lnsb", s[:sep])
}

// BadInvoice is the fault of an invoice that the node could not decode:
// the node's own fault when it says what is wrong (lib/bolt11's
// do), else unsupported input with the node's words.
func BadInvoice(err error) error {
	if errors.Is(err, ErrUnsupportedInput) {
		return err
	}
	return ErrUnsupportedInput.Reasonf("Invalid BOLT11 invoice: %s", err.Error())
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
