package ledger_test

import (
	"errors"
	"strings"
	"testing"

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
