package onchain

import (
	"errors"
	"testing"

	"github.com/btcsuite/btcd/chaincfg"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
)

func TestParseDestination(t *testing.T) {
	t.Parallel()
	const addr = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
	for _, c := range []struct {
		in        string
		address   string
		sat       int64
		lightning string
		err       error
	}{
		{in: addr, address: addr},
		{in: "  " + addr + "\n", address: addr},
		{in: "bitcoin:" + addr, address: addr},
		{in: "BITCOIN:" + addr + "?amount=0.0005&label=rent", address: addr, sat: 50_000},
		{in: "bitcoin:" + addr + "?amount=21", address: addr, sat: 2_100_000_000},
		{in: "bitcoin:" + addr + "?amount=.00000001", address: addr, sat: 1},
		{in: "bitcoin:" + addr + "?lightning=lnbcrt1xyz", address: addr, lightning: "lnbcrt1xyz"},
		{in: "bitcoin:?lightning=LIGHTNING:lnbcrt1xyz", lightning: "lnbcrt1xyz"},
		{in: "bitcoin:" + addr + "?amount=0.000000001", err: ledger.ErrInvalidAmount},
		{in: "bitcoin:" + addr + "?amount=1e3", err: ledger.ErrInvalidAmount},
		{in: "bitcoin:" + addr + "?amount=-1", err: ledger.ErrInvalidAmount},
		{in: "bitcoin:" + addr + "?amount=0", err: ledger.ErrInvalidAmount},
		{in: "bitcoin:" + addr + "?req-pop=1", err: errBadURI},
		{in: "bitcoin:", err: errBadURI},
		{in: "alice@example.com", err: ledger.ErrUnsupportedInput},
		{in: "https://example.com", err: ledger.ErrUnsupportedInput},
		{in: "", err: ledger.ErrUnsupportedInput},
	} {
		d, err := parseDestination(c.in)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%q: %v, want %v", c.in, err, c.err)
			}
			continue
		}
		if err != nil || d.address != c.address || d.amountSat != c.sat || d.lightning != c.lightning {
			t.Errorf("%q = %+v, %v", c.in, d, err)
		}
	}
}

func TestDecodeAddress(t *testing.T) {
	t.Parallel()
	regtest := &chaincfg.RegressionNetParams
	for _, c := range []struct {
		in   string
		dust int64
		err  error
	}{
		{"bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", 294, nil},
		{"BCRT1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KYGT080", 294, nil},
		{"bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", 0, ledger.ErrInvalidAddress},
		{"1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", 0, ledger.ErrInvalidAddress},
		{"lnurl1dp68gurn8ghj7", 0, ledger.ErrUnsupportedInput},
	} {
		a, err := decodeAddress(c.in, regtest)
		if !errors.Is(err, c.err) || (err == nil && dustSat(a) != c.dust) {
			t.Errorf("%q: %v, %v", c.in, a, err)
		}
	}
}

// FuzzParseDestination: any input gives a destination or a fault, never
// a panic, and an amount within the supply.
func FuzzParseDestination(f *testing.F) {
	for _, s := range []string{"bitcoin:bcrt1q?amount=0.1&lightning=lnbc1", "bitcoin:?req-x=1", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "bitcoin:x?amount=99999999.99999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d, err := parseDestination(in)
		if err != nil {
			if _, ok := fault.As(err); !ok {
				t.Fatalf("%q: not a fault: %v", in, err)
			}
			return
		}
		if d.amountSat < 0 || d.amountSat > 21_000_000*100_000_000 {
			t.Fatalf("%q: amount %d", in, d.amountSat)
		}
		_, _ = decodeAddress(d.address, &chaincfg.RegressionNetParams)
	})
}
