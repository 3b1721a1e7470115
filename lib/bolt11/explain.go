package bolt11

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/btcsuite/btcd/chaincfg"

	"github.com/hearthwallet/hearth/core/ledger"
)

// A BOLT11 invoice is bech32 text: a prefix (ln, the network's letters and
// an optional amount), the separator '1', then data characters of the
// bech32 alphabet, the last six of them a checksum. zpay32 reports what
// it finds wrong in the decoder's terms ("invalid character not part of
// charset: 98"); explain says it in the terms of a person who pasted the
// text, with where the fault is, before zpay32 is asked.

// charset is bech32's alphabet of data characters.
const charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// minDataChars is the fewest data characters of an invoice: a timestamp
// (7), a signature (104) and the checksum (6).
const minDataChars = 7 + 104 + 6

// networks are the networks' letters after "ln", the longest first (lnbcrt
// begins as lnbc does), and the names people know them by.
var networks = []struct{ prefix, name string }{
	{"bcrt", "regtest"},
	{"tbs", "signet"},
	{"tb", "testnet"},
	{"bc", "mainnet"},
	{"sb", "simnet"},
}

// notInvoice is the fault of a text that is no BOLT11 invoice (422
// unsupported_input), its reason "not a BOLT11 invoice: " and why.
func notInvoice(format string, args ...any) error {
	return ledger.ErrUnsupportedInput.Reasonf("not a BOLT11 invoice: "+format, args...)
}

// invalid is the fault of an invoice that decodes as bech32 text but not
// as an invoice; detail is zpay32's.
func invalid(detail error) error {
	return ledger.ErrUnsupportedInput.Reasonf("invalid BOLT11 invoice: %s", detail.Error())
}

// explain reports, as a fault whose reason a person understands, what
// makes s no BOLT11 invoice of the network params at the level of its
// text; nil when the text is well formed (its fields and signature are
// left to zpay32).
func explain(s string, params *chaincfg.Params) error {
	if s == "" {
		return notInvoice("it is empty")
	}
	for i, pos := 0, 1; i < len(s); pos++ {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < 33 || r > 126 {
			return notInvoice("%s at position %d is not a bech32 character", quote(r), pos)
		}
		i += size
	}
	lower := strings.ToLower(s)
	if s != lower && s != strings.ToUpper(s) {
		return notInvoice("it mixes upper-case and lower-case letters")
	}
	if !strings.HasPrefix(lower, "ln") {
		return notInvoice(`it must begin with "ln"`)
	}
	sep := strings.LastIndexByte(lower, '1')
	if sep < 0 {
		return notInvoice("no '1' separates its prefix from its data")
	}
	if err := explainPrefix(lower[:sep], params); err != nil {
		return err
	}
	data := lower[sep+1:]
	for i := 0; i < len(data); i++ {
		if strings.IndexByte(charset, data[i]) < 0 {
			return notInvoice("%s at position %d is not a bech32 character", quote(rune(data[i])), sep+2+i)
		}
	}
	if len(data) < minDataChars {
		return notInvoice("only %d characters follow the '1', where an invoice has at least %d (is part of it missing?)", len(data), minDataChars)
	}
	_, _, version, err := bech32.DecodeNoLimitWithVersion(lower)
	var checksum bech32.ErrInvalidChecksum
	if errors.As(err, &checksum) || (err == nil && version != bech32.Version0) {
		return notInvoice("its checksum does not match: a character is mistyped, missing or extra")
	}
	if err != nil {
		return notInvoice("%v", err)
	}
	return nil
}

// explainPrefix checks the part before the separator: "ln", the letters of
// the node's network, an optional amount.
func explainPrefix(hrp string, params *chaincfg.Params) error {
	want := networkOf(params)
	rest := hrp[len("ln"):]
	for _, n := range networks {
		amount, ok := strings.CutPrefix(rest, n.prefix)
		if !ok {
			continue
		}
		if n.prefix != want.prefix {
			return ledger.ErrUnsupportedInput.Reasonf("this is an invoice for %s (ln%s…), but this node is on %s (ln%s…)",
				n.name, n.prefix, want.name, want.prefix)
		}
		if amount != "" && !validAmount(amount) {
			return notInvoice("%q after ln%s is not an amount (digits, then m, u, n or p)", amount, n.prefix)
		}
		return nil
	}
	return notInvoice("its prefix %q names no network: an invoice begins with lnbc, lntb, lntbs, lnbcrt or lnsb", hrp)
}

// networkOf is the entry of networks for params (signet's invoices begin
// lntbs, though its addresses begin tb).
func networkOf(params *chaincfg.Params) struct{ prefix, name string } {
	prefix := params.Bech32HRPSegwit
	if params.Name == chaincfg.SigNetParams.Name {
		prefix = "tbs"
	}
	for _, n := range networks {
		if n.prefix == prefix {
			return n
		}
	}
	return struct{ prefix, name string }{prefix, params.Name}
}

// validAmount reports whether s is digits with an optional multiplier.
func validAmount(s string) bool {
	if last := s[len(s)-1]; strings.IndexByte("munp", last) >= 0 {
		s = s[:len(s)-1]
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// quote shows a character as a person would read it.
func quote(r rune) string {
	switch {
	case r == ' ':
		return "a space"
	case r == utf8.RuneError:
		return "a byte that is not UTF-8"
	case r < 33 || r == 127:
		return fmt.Sprintf("the control character %U", r)
	}
	return strconv.QuoteRune(r)
}
