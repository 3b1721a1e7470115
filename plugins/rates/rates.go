package rates

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/fiat"
)

// Rates holds the rates of the currencies offered, read from the sources
// when asked for: it is the ledger's ledger.Prices.
type Rates struct {
	cfg Config
	out *host.Outbound
	m   *Metrics
	log *slog.Logger
	db  *store.DB // its tables (walletcurrency.go); nil in tests of the rates alone

	mu   sync.Mutex
	byCu map[string]*entry
}

// entry is one currency's rate and its reading.
type entry struct {
	rate    ledger.Rate // zero until a reading succeeded
	reading chan struct{}
	failed  error // why the last reading gave no rate
}

// New returns the rates of cfg, read through out.
func New(cfg Config, out *host.Outbound, m *Metrics, log *slog.Logger) *Rates {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Rates{cfg: cfg, out: out, m: m, log: log, byCu: map[string]*entry{}}
}

// Currencies are the currencies offered.
func (r *Rates) Currencies() []string { return slices.Clone(r.cfg.Currencies) }

// Rate is the rate of currency: fixed, or the last reading while younger
// than max_age (read again in the background once older than refresh),
// else a reading now. It answers ledger.ErrUnknownCurrency for a currency
// not offered, and ledger.ErrRatesUnavailable when no reading younger than
// max_age has a rate.
func (r *Rates) Rate(ctx context.Context, currency string) (ledger.Rate, error) {
	code, ok := fiat.Currency(currency)
	if !ok {
		return ledger.Rate{}, fault.Invalidf("currency is a three-letter ISO 4217 code, e.g. EUR")
	}
	if !slices.Contains(r.cfg.Currencies, code) {
		return ledger.Rate{}, ledger.ErrUnknownCurrency.Reasonf("This instance offers no rate for %q: it offers %v", currency, r.cfg.Currencies)
	}
	now := r.cfg.Now()
	if p, ok := r.cfg.Fixed[code]; ok {
		rate, err := fiat.RateOfPrice(p)
		if err != nil {
			return ledger.Rate{}, err
		}
		return ledger.Rate{Currency: code, Rate: rate, Sources: []string{"fixed"}, At: now.UTC(), Fixed: true}, nil
	}
	r.mu.Lock()
	e := r.byCu[code]
	if e == nil {
		e = &entry{}
		r.byCu[code] = e
	}
	rate, reading := e.rate, e.reading
	fresh := rate.Rate != "" && now.Sub(rate.At) < r.cfg.MaxAge
	if fresh && now.Sub(rate.At) >= r.cfg.Refresh && reading == nil {
		reading = r.startReading(code, e) // in the background: the rate is still good
	}
	if !fresh && reading == nil {
		reading = r.startReading(code, e)
	}
	r.mu.Unlock()
	if fresh {
		return rate, nil
	}
	select {
	case <-reading:
	case <-ctx.Done():
		return ledger.Rate{}, ctx.Err()
	}
	r.mu.Lock()
	rate, failed := e.rate, e.failed
	r.mu.Unlock()
	if rate.Rate == "" || r.cfg.Now().Sub(rate.At) >= r.cfg.MaxAge {
		reason := "no source answered"
		if failed != nil {
			reason = failed.Error()
		}
		return ledger.Rate{}, ledger.ErrRatesUnavailable.Reasonf("No fresh exchange rate for %s: %s", code, reason)
	}
	return rate, nil
}

// startReading reads code's sources in the background, under r.mu; the
// channel it returns closes when the reading is done.
func (r *Rates) startReading(code string, e *entry) chan struct{} {
	done := make(chan struct{})
	e.reading = done
	go func() {
		rate, err := r.read(context.Background(), code)
		r.mu.Lock()
		if err == nil {
			e.rate = rate
		}
		e.failed, e.reading = err, nil
		r.mu.Unlock()
		close(done)
	}()
	return done
}

// quote is one source's price.
type quote struct {
	source string
	price  *big.Rat
}

// read asks every source that quotes code, at once, and makes the rate of
// the median of the prices that agree.
func (r *Rates) read(ctx context.Context, code string) (ledger.Rate, error) {
	at := r.cfg.Now().UTC()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		quotes []quote
	)
	for _, s := range r.cfg.Sources {
		if !s.quotes(code) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := r.ask(ctx, s, code)
			if err != nil {
				r.m.count(s.Name, "error")
				r.log.Warn("a price source failed", "source", s.Name, "currency", code, "err", err)
				return
			}
			mu.Lock()
			quotes = append(quotes, quote{s.Name, p})
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(quotes) == 0 {
		return ledger.Rate{}, fmt.Errorf("no source of %s answered", code)
	}
	kept := r.agreeing(quotes, code)
	if len(kept) == 0 {
		return ledger.Rate{}, fmt.Errorf("the sources of %s disagree by more than %.0f %%", code, r.cfg.MaxDeviation*100)
	}
	rate, err := fiat.RateOfPrice(median(kept))
	if err != nil {
		return ledger.Rate{}, err
	}
	names := make([]string, len(kept))
	for i, q := range kept {
		names[i] = q.source
	}
	slices.Sort(names)
	return ledger.Rate{Currency: code, Rate: rate, Sources: names, At: at}, nil
}

// ask reads one source's price of a bitcoin in code.
func (r *Rates) ask(ctx context.Context, s Source, code string) (*big.Rat, error) {
	resp, err := r.out.Do(ctx, nil, host.OutboundRequest{Method: http.MethodGet, URL: s.url(code),
		Headers: map[string]string{"Accept": "application/json"}})
	if err != nil {
		return nil, err
	}
	if resp.Status != http.StatusOK {
		return nil, fmt.Errorf("%s answered %d", s.Name, resp.Status)
	}
	p, err := s.price(resp.Body, code)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	if p == nil || p.Sign() <= 0 {
		return nil, fmt.Errorf("%s: a price that is not positive", s.Name)
	}
	return p, nil
}

// agreeing keeps the quotes within MaxDeviation of the median of all,
// counting each kept or left out.
func (r *Rates) agreeing(quotes []quote, code string) []quote {
	mid := median(quotes)
	limit := new(big.Rat).Mul(mid, new(big.Rat).SetFloat64(r.cfg.MaxDeviation))
	var kept []quote
	for _, q := range quotes {
		off := new(big.Rat).Sub(q.price, mid)
		if off.Abs(off).Cmp(limit) > 0 {
			r.m.count(q.source, "outlier")
			r.log.Warn("a price source strays from the others: left out", "source", q.source, "currency", code,
				"price", q.price.FloatString(2), "median", mid.FloatString(2))
			continue
		}
		r.m.count(q.source, "ok")
		kept = append(kept, q)
	}
	return kept
}

// median is the median price of quotes (the mean of the middle two of an
// even count).
func median(quotes []quote) *big.Rat {
	ps := make([]*big.Rat, len(quotes))
	for i, q := range quotes {
		ps[i] = q.price
	}
	slices.SortFunc(ps, func(a, b *big.Rat) int { return a.Cmp(b) })
	n := len(ps)
	if n%2 == 1 {
		return new(big.Rat).Set(ps[n/2])
	}
	sum := new(big.Rat).Add(ps[n/2-1], ps[n/2])
	return sum.Quo(sum, big.NewRat(2, 1))
}
