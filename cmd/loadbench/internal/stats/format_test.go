package stats

import (
	"testing"
	"time"
)

func TestRound(t *testing.T) {
	for _, tc := range []struct{ in, want time.Duration }{
		{1234567 * time.Nanosecond, 1230 * time.Microsecond}, // from 1 ms: to 10 µs
		{1235000 * time.Nanosecond, 1240 * time.Microsecond},
		{999499 * time.Nanosecond, 999 * time.Microsecond}, // below: to the µs
		{999500 * time.Nanosecond, 1000 * time.Microsecond},
		{0, 0},
	} {
		if got := Round(tc.in); got != tc.want {
			t.Errorf("Round(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestFigures(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{1234.56, "1235"}, {100, "100"}, {99.996, "100.00"}, {1.005, "1.00"}, {0.5, "0.50"}, {1.07, "1.07"}} {
		if got := Figure(tc.v); got != tc.want {
			t.Errorf("Figure(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got, want := JoinFigures([]float64{4210.4, 1.5, 12}), "4210 · 1.50 · 12.00"; got != want {
		t.Errorf("JoinFigures = %q, want %q", got, want)
	}
	if got := JoinFigures(nil); got != "" {
		t.Errorf("JoinFigures(nil) = %q, want empty", got)
	}
}

func TestThousands(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {2_000, "2,000"}, {10_000_000, "10,000,000"}, {-123, "-123"}, {-1234567, "-1,234,567"}} {
		if got := Thousands(tc.n); got != tc.want {
			t.Errorf("Thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestMillisAndSecs(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{1400 * time.Microsecond, "1.4 ms"}, {9949 * time.Microsecond, "9.9 ms"}, {10 * time.Millisecond, "10 ms"}, {1234567 * time.Microsecond, "1,235 ms"}} {
		if got := Millis(tc.d); got != tc.want {
			t.Errorf("Millis(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{240 * time.Millisecond, "0.24 s"}, {9994 * time.Millisecond, "9.99 s"}, {10 * time.Second, "10 s"}, {244 * time.Second, "244 s"}} {
		if got := Secs(tc.d); got != tc.want {
			t.Errorf("Secs(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
