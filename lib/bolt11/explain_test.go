package bolt11_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/lightningnetwork/lnd/lnwire"
	"github.com/lightningnetwork/lnd/zpay32"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/lib/bolt11"
)

// mainnetInvoice is BOLT11's own example of an invoice with a payment
// secret, on mainnet.
const mainnetInvoice = "lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsnp4q0n326hr8v9zprg8gsvezcch06gfaqqhde2aj730yg0durunfhv66sp5qszsvpcgpyqsyps8pqysqqgzqvyqjqqpqgpsgpgqqypqxpq9qcrsusq8nx2hdt3st3ankwz23xy9w7udvqq3f0mdlpc6ga5ew3y67u4qkx8vu72ejg5x6tqhyclm28r7r0mg6lx9x3vls9g6glp2qy3y34cpry54xp"

// regtestInvoice signs an invoice of 10,000 msat on regtest.
func regtestInvoice(t *testing.T) string {
	t.Helper()
	key, err := btcec.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	inv, err := zpay32.NewInvoice(&chaincfg.RegressionNetParams, [32]byte{1}, time.Now(),
		zpay32.Amount(lnwire.MilliSatoshi(10_000)), zpay32.Description("coffee"), zpay32.PaymentAddr([32]byte{2}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := inv.Encode(zpay32.MessageSigner{SignCompact: func(msg []byte) ([]byte, error) {
		return ecdsa.SignCompact(key, chainhash.HashB(msg), true), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// replaceAt returns s with its i-th byte (from 0) replaced by c.
func replaceAt(s string, i int, c byte) string { return s[:i] + string(c) + s[i+1:] }

// TestDecodeExplainsWhatIsWrong: each common way a pasted invoice goes
// wrong is refused as unsupported input (422) with a reason that says
// what is wrong and where, in a person's words, never the decoder's.
func TestDecodeExplainsWhatIsWrong(t *testing.T) {
	t.Parallel()
	good := regtestInvoice(t)
	if _, err := bolt11.Decode(good, &chaincfg.RegressionNetParams); err != nil {
		t.Fatalf("a good invoice: %v", err)
	}
	sep := strings.LastIndexByte(good, '1')
	// A data character replaced by another of the alphabet: only the
	// checksum can tell.
	swapped := byte('q')
	if good[sep+10] == 'q' {
		swapped = 'p'
	}
	upper := strings.ToUpper(good)
	for _, tc := range []struct {
		name, in string
		want     string
	}{
		{"a letter outside the alphabet", replaceAt(good, sep+4, 'b'),
			"not a BOLT11 invoice: 'b' at position " + strconv.Itoa(sep+5) + " is not a bech32 character"},
		{"a space inside", replaceAt(good, 20, ' '), "not a BOLT11 invoice: a space at position 21 is not a bech32 character"},
		{"a letter with an accent", good[:30] + "é" + good[31:], "not a BOLT11 invoice: 'é' at position 31 is not a bech32 character"},
		{"a mistyped character", replaceAt(good, sep+10, swapped), "not a BOLT11 invoice: its checksum does not match: a character is mistyped, missing or extra"},
		{"a character missing", good[:sep+20] + good[sep+21:], "not a BOLT11 invoice: its checksum does not match"},
		{"another network", mainnetInvoice, "this is an invoice for mainnet (lnbc…), but this node is on regtest (lnbcrt…)"},
		{"an unknown network", "lnxy" + good[len("lnbcrt"):], `not a BOLT11 invoice: its prefix "lnxy` + good[len("lnbcrt"):sep] + `" names no network: an invoice begins with lnbc, lntb, lntbs, lnbcrt or lnsb`},
		{"a prefix other than ln", "xx" + good[2:], `not a BOLT11 invoice: it must begin with "ln"`},
		{"a bad amount", "lnbcrt10x" + good[sep:], `not a BOLT11 invoice: "10x" after lnbcrt is not an amount`},
		{"cut short", good[:sep+40], "not a BOLT11 invoice: only 39 characters follow the '1', where an invoice has at least 117 (is part of it missing?)"},
		{"too short to be anything", "lnbcrt1", "not a BOLT11 invoice: only 0 characters follow the '1'"},
		{"no separator", strings.ReplaceAll(good, "1", ""), "not a BOLT11 invoice: no '1' separates its prefix from its data"},
		{"mixed case", upper[:40] + good[40:], "not a BOLT11 invoice: it mixes upper-case and lower-case letters"},
		{"empty", "", "not a BOLT11 invoice: it is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := bolt11.Decode(tc.in, &chaincfg.RegressionNetParams)
			if !errors.Is(err, ledger.ErrUnsupportedInput) {
				t.Fatalf("Decode(%.40q…) = %v, want an unsupported_input fault", tc.in, err)
			}
			f, _ := fault.As(err)
			if !strings.HasPrefix(f.Reason, tc.want) {
				t.Fatalf("reason %q, want it to begin %q", f.Reason, tc.want)
			}
		})
	}
	if _, err := bolt11.Decode(upper, &chaincfg.RegressionNetParams); err != nil {
		t.Errorf("the invoice in upper case (as in QR codes): %v", err)
	}
}
