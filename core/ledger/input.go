package ledger

import (
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

// ParseInput recognises a payment input. For now that is a BOLT11 invoice,
// optionally prefixed by "lightning:", in any letter case; LNURL, Lightning
// Addresses and on-chain destinations come with their plugins.
func ParseInput(raw string) (Input, error) {
	s := strings.TrimSpace(raw)
	if s == "" || len(s) > maxInputLen {
		return Input{}, ErrUnsupportedInput
	}
	lower := strings.ToLower(s)
	lower = strings.TrimPrefix(lower, "lightning:")
	if strings.HasPrefix(lower, "lnbc") || strings.HasPrefix(lower, "lntb") ||
		strings.HasPrefix(lower, "lntbs") || strings.HasPrefix(lower, "lnbcrt") || strings.HasPrefix(lower, "lnsb") {
		return Input{Kind: InputBolt11, Bolt11: lower}, nil
	}
	return Input{}, ErrUnsupportedInput
}
