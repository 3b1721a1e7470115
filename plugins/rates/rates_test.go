package rates_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/rates"
)

// quiet is a logger for what the tests make go wrong on purpose.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// clock is a test's clock, moved by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fixture is rates read from a price server, on a clock of its own, with
// its metrics in a registry of its own.
type fixture struct {
	r     *rates.Rates
	srv   *priceServer
	clock *clock
	reg   *prometheus.Registry
}

func newFixture(t *testing.T, tune func(*rates.Settings)) *fixture {
	t.Helper()
	f := &fixture{srv: newPriceServer(t), clock: &clock{now: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)}, reg: prometheus.NewRegistry()}
	s := rates.DefaultSettings()
	s.Sources = f.srv.sources()
	if tune != nil {
		tune(&s)
	}
	cfg, err := rates.ConfigOf(s)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Now = f.clock.Now
	m, err := rates.NewMetrics(f.reg)
	if err != nil {
		t.Fatal(err)
	}
	f.r = rates.New(cfg, host.NewOutbound(host.OutboundConfig{AllowPrivate: true}), m, quiet)
	return f
}

func (f *fixture) rate(t *testing.T, currency string) ledger.Rate {
	t.Helper()
	r, err := f.r.Rate(context.Background(), currency)
	if err != nil {
		t.Fatalf("rate of %s: %v", currency, err)
	}
	return r
}

// counted is how many readings of source ended with outcome.
func (f *fixture) counted(source, outcome string) int {
	families, err := f.reg.Gather()
	if err != nil {
		panic(err)
	}
	for _, fam := range families {
		if fam.GetName() != "hearth_rates_source_total" {
			continue
		}
		for _, m := range fam.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["source"] == source && labels["outcome"] == outcome {
				return int(m.GetCounter().GetValue())
			}
		}
	}
	return 0
}

// The rate is the median of the sources, as sat per unit, each source read
// in its own format; they are read once for many callers at once.
func TestTheRateIsTheMedianOfTheSources(t *testing.T) {
	f := newFixture(t, nil)
	for src, p := range map[string]string{"kraken": "100000.10000", "bitstamp": "99900", "coinbase": "100100.50", "mempool": "100000", "yadio": "99950.25"} {
		f.srv.set(src, "USD", p)
	}
	var wg sync.WaitGroup
	got := make([]ledger.Rate, 20)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = f.rate(t, "usd") }()
	}
	wg.Wait()
	want := ledger.Rate{Currency: "USD", Rate: "1000", Sources: []string{"bitstamp", "coinbase", "kraken", "mempool", "yadio"},
		At: f.clock.Now()}
	for _, r := range got {
		if r.Currency != want.Currency || r.Rate != want.Rate || !slices.Equal(r.Sources, want.Sources) || !r.At.Equal(want.At) || r.Fixed {
			t.Fatalf("rate = %+v, want %+v", r, want)
		}
	}
	for _, src := range want.Sources {
		if n := f.srv.asked(src); n != 1 {
			t.Errorf("%s was asked %d times by 20 callers, want once", src, n)
		}
		if n := f.counted(src, "ok"); n != 1 {
			t.Errorf("%s counted %d ok readings, want 1", src, n)
		}
	}
	// Four sources: the mean of the middle two.
	f.srv.set("kraken", "EUR", "90000")
	f.srv.set("bitstamp", "EUR", "90010")
	f.srv.set("coinbase", "EUR", "89990")
	f.srv.set("mempool", "EUR", "90020")
	if r := f.rate(t, "EUR"); r.Rate != "1111.0493861452" || len(r.Sources) != 4 { // 10^8 / 90005
		t.Fatalf("EUR = %+v, want 10^8/90005 from four sources (yadio quotes no EUR here)", r)
	}
}

// A source that fails is left out and counted; one that strays from the
// others by more than max_deviation (here 50 % too high) too.
func TestASourceDownOrWrongIsLeftOut(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.setAll("USD", "100000")
	f.srv.fail("kraken", true)
	f.srv.set("coinbase", "USD", "150000")
	r := f.rate(t, "USD")
	if r.Rate != "1000" || !slices.Equal(r.Sources, []string{"bitstamp", "mempool", "yadio"}) {
		t.Fatalf("rate = %+v, want 1000 from bitstamp, mempool and yadio", r)
	}
	if f.counted("kraken", "error") != 1 || f.counted("coinbase", "outlier") != 1 || f.counted("mempool", "ok") != 1 {
		t.Fatalf("counted kraken error %d, coinbase outlier %d, mempool ok %d; want 1 each",
			f.counted("kraken", "error"), f.counted("coinbase", "outlier"), f.counted("mempool", "ok"))
	}
	// Two sources that disagree give no rate: neither can be told right.
	f.srv.fail("kraken", false)
	f.srv.set("kraken", "GBP", "70000")
	f.srv.set("bitstamp", "GBP", "105000")
	_, err := f.r.Rate(context.Background(), "GBP")
	if !errors.Is(err, ledger.ErrRatesUnavailable) {
		t.Fatalf("two sources 50 %% apart: %v, want rates_unavailable", err)
	}
}

// Past refresh the rate is served while the sources are read again in
// the background; past max_age with no source fresh, amounts in the
// currency are refused: never a stale price.
func TestAStaleRateIsNeverUsed(t *testing.T) {
	f := newFixture(t, func(s *rates.Settings) {
		s.Refresh.Duration, s.MaxAge.Duration = time.Minute, 10*time.Minute
	})
	f.srv.setAll("EUR", "80000")
	first := f.rate(t, "EUR")
	if first.Rate != "1250" {
		t.Fatalf("rate = %+v, want 1250", first)
	}
	f.srv.setAll("EUR", "100000")
	f.clock.add(2 * time.Minute)
	if r := f.rate(t, "EUR"); r.Rate != "1250" || !r.At.Equal(first.At) {
		t.Fatalf("past refresh, rate = %+v, want the last one served while read again", r)
	}
	waitFor(t, func() bool { return f.rate(t, "EUR").Rate == "1000" })
	for _, src := range []string{"kraken", "bitstamp", "coinbase", "mempool", "yadio"} {
		f.srv.fail(src, true)
	}
	f.clock.add(9 * time.Minute) // 9 min old: read again, fails, still served
	if r := f.rate(t, "EUR"); r.Rate != "1000" {
		t.Fatalf("within max_age, rate = %+v, want the last one", r)
	}
	f.clock.add(time.Minute + time.Second)
	_, err := f.r.Rate(context.Background(), "EUR")
	if !errors.Is(err, ledger.ErrRatesUnavailable) {
		t.Fatalf("past max_age with every source down: %v, want rates_unavailable", err)
	}
	f.srv.fail("mempool", false)
	if r := f.rate(t, "EUR"); r.Rate != "1000" || !slices.Equal(r.Sources, []string{"mempool"}) || !r.At.Equal(f.clock.Now()) {
		t.Fatalf("once a source answers again, rate = %+v, want mempool's, read now", r)
	}
}

// A currency priced by hand reads no source and says so; a currency not
// offered is refused as unknown.
func TestFixedAndUnknownCurrencies(t *testing.T) {
	f := newFixture(t, func(s *rates.Settings) { s.Fixed = "USD:95000, eur:88000.50"; s.Currencies = "GBP" })
	r := f.rate(t, "USD")
	if r.Rate != "1052.6315789474" || !r.Fixed || !slices.Equal(r.Sources, []string{"fixed"}) || !r.At.Equal(f.clock.Now()) {
		t.Fatalf("fixed USD = %+v", r)
	}
	if r := f.rate(t, "EUR"); r.Rate != "1136.3571797888" || !r.Fixed { // 10^8 / 88000.5
		t.Fatalf("fixed EUR = %+v", r)
	}
	if n := f.srv.asked("coinbase") + f.srv.asked("kraken"); n != 0 {
		t.Fatalf("fixed rates asked the sources %d times", n)
	}
	if _, err := f.r.Rate(context.Background(), "JPY"); !errors.Is(err, ledger.ErrUnknownCurrency) {
		t.Fatalf("JPY, not offered: %v, want unknown_currency", err)
	}
	if got := f.r.Currencies(); !slices.Equal(got, []string{"GBP", "USD", "EUR"}) {
		t.Fatalf("currencies = %v", got)
	}
}

// Settings that cannot work are refused when the server starts.
func TestSettingsAreChecked(t *testing.T) {
	for name, tune := range map[string]func(*rates.Settings){
		"unknown source":       func(s *rates.Settings) { s.Sources = "kraken,binance" },
		"source twice":         func(s *rates.Settings) { s.Sources = "kraken,kraken=https://k.example" },
		"base no URL":          func(s *rates.Settings) { s.Sources = "kraken=ftp://k.example" },
		"currency no code":     func(s *rates.Settings) { s.Currencies = "USD,DOLLAR" },
		"fixed no price":       func(s *rates.Settings) { s.Fixed = "USD" },
		"fixed zero":           func(s *rates.Settings) { s.Fixed = "USD:0" },
		"max_age < refresh":    func(s *rates.Settings) { s.MaxAge.Duration = time.Second },
		"deviation too wide":   func(s *rates.Settings) { s.MaxDeviation = 1 },
		"currency not offered": func(s *rates.Settings) { s.Currencies, s.Currency = "USD,EUR", "JPY" },
	} {
		s := rates.DefaultSettings()
		tune(&s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := rates.DefaultSettings().Validate(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
}

// waitFor waits for cond, which a background reading brings about.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met after 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
