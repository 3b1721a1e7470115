package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// BenchmarkPayInternalMetrics is BenchmarkPayInternal on two servers at
// once, one with metrics off and one with them on (the ledger counting
// each payment and its invoice, the API timing each request), each on a
// database of its own, in interleaved blocks of payments so that a drift
// of the machine hits both alike. It reports each side's time per payment
// and on/off, the cost of the metrics (docs/performance.md):
//
//	go test ./api/ -run '^$' -bench PayInternalMetrics -benchtime 20000x -count 5
func BenchmarkPayInternalMetrics(b *testing.B) {
	for _, d := range databases {
		b.Run(d.name, func(b *testing.B) {
			withMetrics := newPaySide(b, d.open(b), metrics.New("bench")) // built first: the order of the builds is no bias
			sides := []*paySide{newPaySide(b, d.open(b), nil), withMetrics}
			const block = 100
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i += block {
				for j, s := range sides {
					if (i/block)%2 == 1 { // the other side first every other block
						s = sides[1-j]
					}
					s.pay(b, min(block, b.N-i))
				}
			}
			b.StopTimer()
			off, on := sides[0].per(), sides[1].per()
			b.ReportMetric(float64(off.Nanoseconds()), "off-ns/pay")
			b.ReportMetric(float64(on.Nanoseconds()), "on-ns/pay")
			b.ReportMetric(float64(on)/float64(off), "on/off")
		})
	}
}

// paySide is one server under BenchmarkPayInternalMetrics: its payer's
// key and the invoices still to pay.
type paySide struct {
	e       *env
	key     []string
	bolt11s []string
	took    time.Duration
	paid    int
}

// newPaySide builds a server on db counting into m (nil: metrics off),
// funds its payer and issues the invoices of b.N payments.
func newPaySide(b *testing.B, db *store.DB, m *metrics.Metrics) *paySide {
	b.Helper()
	e := newEnvWith(b, db, envOptions{metrics: m, noMetrics: m == nil}, nil)
	payer, payee := e.user("bench-payer"), e.user("bench-payee")
	payer.fund(b, int64(b.N)*1000)
	s := &paySide{e: e, key: payer.key, bolt11s: make([]string, b.N)}
	for i := range s.bolt11s {
		inv, err := e.ledger.CreateInvoice(context.Background(), payee.id, ledger.NewInvoice{AmountMsat: 1000})
		if err != nil {
			b.Fatal(err)
		}
		s.bolt11s[i] = inv.Bolt11
	}
	return s
}

// pay pays the side's next n invoices over the API, timing them.
func (s *paySide) pay(b *testing.B, n int) {
	start := time.Now()
	for range n {
		req := httptest.NewRequest("POST", "/v1/me/payments", strings.NewReader(`{"input":"`+s.bolt11s[s.paid]+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(s.key[0], s.key[1])
		rec := httptest.NewRecorder()
		s.e.srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			b.Fatalf("POST /v1/me/payments = %d; body %s", rec.Code, rec.Body)
		}
		s.paid++
	}
	s.took += time.Since(start)
}

// per is the side's time per payment.
func (s *paySide) per() time.Duration {
	if s.paid == 0 {
		return 0
	}
	return s.took / time.Duration(s.paid)
}
