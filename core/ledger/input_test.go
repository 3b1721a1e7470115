package ledger_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
)

func TestParseInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string // "" for unsupported
	}{
		{"lnbcrt10n1abc", "lnbcrt10n1abc"},
		{"  LIGHTNING:LNBC1ABC  ", "lnbc1abc"},
		{"lntb1xyz", "lntb1xyz"},
		{"", ""},
		{"alice@example.com", ""},
		{"bitcoin:bc1q", ""},
		{"bitcoin:bcrt1qxyz?amount=0.001&lightning=lnbcrt10n1abc", "lnbcrt10n1abc"},
		{"BITCOIN:BCRT1QXYZ?LIGHTNING=LNBCRT10N1ABC", "lnbcrt10n1abc"},
		{"bitcoin:?lightning=lightning:lnbc1x", ""},
		{"bitcoin:bc1q?lightning=notaninvoice", ""},
		{"bitcoin:bc1q?lightning=%zz", ""},
		{strings.Repeat("lnbc", 5000), ""},
	} {
		got, err := ledger.ParseInput(tc.in)
		switch {
		case tc.want == "" && !errors.Is(err, ledger.ErrUnsupportedInput):
			t.Errorf("%.30q: err = %v, want unsupported", tc.in, err)
		case tc.want != "" && (err != nil || got.Bolt11 != tc.want):
			t.Errorf("%.30q = %+v, %v", tc.in, got, err)
		}
	}
}

func FuzzParseInput(f *testing.F) {
	for _, s := range []string{"lnbcrt1", "lightning:lnbc1", "", "user@host", "LNURL1DP68"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in, err := ledger.ParseInput(s)
		if err != nil {
			if !errors.Is(err, ledger.ErrUnsupportedInput) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if in.Kind != ledger.InputBolt11 || !strings.HasPrefix(in.Bolt11, "ln") || in.Bolt11 != strings.ToLower(in.Bolt11) {
			t.Fatalf("parsed %q as %+v", s, in)
		}
	})
}

// TestParseInputSaysWhy: an input meant as a BOLT11 invoice that cannot
// be one is refused with a reason that says why, not "Unsupported payment
// input"; an upper-case invoice (QR codes) is still one.
func TestParseInputSaysWhy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"lnbcrt10n1ABC", "not a BOLT11 invoice: it mixes upper-case and lower-case letters"},
		{"lightning:LNbc1xyz", "not a BOLT11 invoice: it mixes upper-case and lower-case letters"},
		{"lnxy10n1pqqqqq", `not a BOLT11 invoice: its prefix "lnxy10n" names no network: an invoice begins with lnbc, lntb, lntbs, lnbcrt or lnsb`},
		{"hello", "Unsupported payment input"},
		{"lnurl1dp68gurn8ghj7", `not a BOLT11 invoice: its prefix "lnurl" names no network: an invoice begins with lnbc, lntb, lntbs, lnbcrt or lnsb`},
	} {
		_, err := ledger.ParseInput(tc.in)
		var f *fault.Error
		if !errors.Is(err, ledger.ErrUnsupportedInput) || !errors.As(err, &f) || f.Reason != tc.want {
			t.Errorf("ParseInput(%q) = %v, want unsupported input %q", tc.in, err, tc.want)
		}
	}
	if in, err := ledger.ParseInput("LIGHTNING:LNBCRT10N1ABC"); err != nil || in.Bolt11 != "lnbcrt10n1abc" {
		t.Errorf("an upper-case invoice: %+v, %v", in, err)
	}
}
