package export

import (
	"errors"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
)

// TestDefuse: a cell that a spreadsheet would run as a formula begins
// with an apostrophe; every other is left as it is.
func TestDefuse(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"=1+1": "'=1+1", "+1": "'+1", "-5": "'-5", "@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx", "\rx": "'\rx",
		"": "", "plain": "plain", "a=b": "a=b", " =1": " =1", "'=1": "'=1", "12.500": "12.500", "\nx": "\nx",
	} {
		if got := Defuse(in); got != want {
			t.Errorf("Defuse(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSat: msat in sat, exact, three places.
func TestSat(t *testing.T) {
	t.Parallel()
	for in, want := range map[int64]string{0: "0.000", 1: "0.001", 999: "0.999", 1000: "1.000", 1234: "1.234",
		100_000_000_000: "100000000.000", 9_223_372_036_854_775_807: "9223372036854775.807", -1500: "-1.500"} {
		if got := sat(&in); got != want {
			t.Errorf("sat(%d) = %q, want %q", in, got, want)
		}
	}
	if sat(nil) != "" || msat(nil) != "" {
		t.Error("no amount is not an empty cell")
	}
}

// TestSpan: from stays, to becomes the last microsecond before it, a
// to between microseconds the last one before it; an empty or inverted
// span is refused.
func TestSpan(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 11, 1, 1, 0, 0, 0, time.FixedZone("CET", 3600))
	for _, c := range []struct {
		to    time.Time
		until time.Time
	}{
		{time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 23, 59, 59, 999_999_000, time.UTC)},
		{time.Date(2026, 11, 2, 0, 0, 0, 500, time.UTC), time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)},
		{time.Date(2026, 11, 2, 0, 0, 0, 1000, time.UTC), time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)},
	} {
		var f ledger.Filter
		if err := (Span{From: &from, To: &c.to}).Apply(&f); err != nil {
			t.Fatal(err)
		}
		if !f.From.Equal(from) || f.From.Location() != time.UTC || !f.Until.Equal(c.until) {
			t.Errorf("to %s: from %s until %s, want until %s", c.to, f.From, f.Until, c.until)
		}
	}
	for _, to := range []time.Time{from, from.Add(-time.Nanosecond)} {
		if err := (Span{From: &from, To: &to}).Apply(&ledger.Filter{}); !errors.Is(err, ErrRange) {
			t.Errorf("to %s: %v, want ErrRange", to, err)
		}
	}
}

// TestParseFormat: csv by default, jsonl or json for JSON Lines, nothing
// else.
func TestParseFormat(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Format{"": CSV, "csv": CSV, "jsonl": JSONLines, "json": JSONLines} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"CSV", "xlsx", "ndjson"} {
		if _, err := ParseFormat(in); err == nil {
			t.Errorf("ParseFormat(%q) accepted", in)
		}
	}
}
