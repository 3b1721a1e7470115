package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// signalsTest is loadbench -signals: how soon a payment's signals reach
// their listeners while payments run. One `hearth serve` of build o.b per
// database, set up as an A/B instance is (abload.go), with a webhook of
// invoice.settled on every payee wallet, received by a server of this
// process, and one client of the admin's stream of every wallet's events
// (GET /v1/events), as an open dashboard would be. For each payment, the
// delay from its answer to its invoice's invoice.settled event on the
// stream and at the webhook: at o.rate, then flat out. An event that never
// comes fails the run.
func signalsTest(ctx context.Context, databases, pgURL string, o abOptions) error {
	b, err := buildHearth(ctx, "B", o.b)
	if err != nil {
		return err
	}
	defer b.remove()
	fmt.Printf("loadbench -signals: %s; %d clients paying %d payees at random over HTTP from another process, "+
		"a webhook of invoice.settled on each payee and the admin's stream of every event; %d at %.0f/s, then %d flat out\n",
		b.name, o.clients, o.clients, o.ratePayments, o.rate, o.payments)
	for n, name := range strings.Split(databases, ",") {
		name = strings.TrimSpace(name)
		if err := signalsOn(ctx, name, pgURL, b, o, n); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// signalsOn runs the phases on one database.
func signalsOn(ctx context.Context, name, pgURL string, b build, o abOptions, n int) error {
	pg := machine.Meter{}
	if name == "postgres" {
		pg = machine.PostgresMeter(ctx, pgURL)
	}
	b.env = append(slices.Clip(b.env), "HEARTH_PLUGINS_ALLOW_PRIVATE_HOSTS=true") // the webhooks' receiver is on loopback
	inst, err := startServer(ctx, b, name, pgURL, 2000+n)
	if err != nil {
		return err
	}
	defer inst.stop()
	o.rounds = 1
	l, err := newOperatorLoad(ctx, inst, o, pg)
	if err != nil {
		return err
	}
	defer l.close()
	s := newSignals(l.pool)
	l.answered = func(j int64) { s.answered[j].Store(time.Now().UnixNano()) }
	stop, err := s.listen(ctx, l)
	if err != nil {
		return err
	}
	defer stop()
	for _, ph := range []struct {
		name      string
		warm, per int
		rate      float64
	}{
		{name: fmt.Sprintf("at %.0f/s", o.rate), per: o.ratePayments / o.clients, rate: o.rate},
		{name: "flat out", warm: o.warmup / o.clients, per: o.payments / o.clients},
	} {
		machine.WaitQuiet(o.quiet, o.quietWait)
		if ph.warm > 0 {
			if _, err := l.phase(ph.name+" (warm-up)", 0, ph.warm, ph.rate); err != nil {
				return err
			}
		}
		from := l.next.Load()
		r, err := l.phase(ph.name, 0, ph.per, ph.rate)
		if err != nil {
			return fmt.Errorf("%s: %w; its log: %s", ph.name, err, inst.logTail)
		}
		to := l.next.Load()
		if err := s.wait(ctx, from, to, 30*time.Second); err != nil {
			return fmt.Errorf("%s: %w", ph.name, err)
		}
		fmt.Printf("%-9s %-10s %6.0f/s  payment p50 %8s p99 %8s | stream p50 %8s p99 %8s max %8s | webhook p50 %8s p99 %8s max %8s\n",
			name, ph.name, r.Rate(), stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)),
			s.delay(s.stream, from, to, 50), s.delay(s.stream, from, to, 99), s.delay(s.stream, from, to, 100),
			s.delay(s.webhook, from, to, 50), s.delay(s.webhook, from, to, 99), s.delay(s.webhook, from, to, 100))
	}
	return l.verify(ctx)
}

// signals holds, by pool index, when each payment was answered and when
// its invoice's invoice.settled event reached the stream and the webhook
// (Unix nanoseconds; 0 for not yet).
type signals struct {
	index                     map[string]int64 // the pool's bolt11s
	answered, stream, webhook []atomic.Int64
}

func newSignals(pool []string) *signals {
	s := &signals{index: make(map[string]int64, len(pool)), answered: make([]atomic.Int64, len(pool)),
		stream: make([]atomic.Int64, len(pool)), webhook: make([]atomic.Int64, len(pool))}
	for j, b := range pool {
		s.index[b] = int64(j)
	}
	return s
}

// heard notes the event data (an outbox event's JSON) as arrived now in
// at, if it is the invoice.settled of an invoice of the pool; the first
// arrival counts.
func (s *signals) heard(at []atomic.Int64, data []byte) {
	var e struct {
		Type string
		Data struct {
			LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
		}
	}
	if json.Unmarshal(data, &e) != nil || e.Type != "invoice.settled" {
		return
	}
	if j, ok := s.index[e.Data.LnInvoice.Bolt11]; ok {
		at[j].CompareAndSwap(0, time.Now().UnixNano())
	}
}

// listen registers a webhook of invoice.settled on every payee wallet,
// received by a server of this process, and opens the admin's stream; it
// returns once the stream answers, with what stops both.
func (s *signals) listen(ctx context.Context, l *operatorLoad) (stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.heard(s.webhook, body)
		w.WriteHeader(http.StatusNoContent)
	})}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	sctx, cancel := context.WithCancel(ctx)
	stop = func() { cancel(); srv.Close() }
	url := "http://" + ln.Addr().String() + "/hook"
	err = l.parallel(len(l.payeeKeys), func(i int) error {
		var me struct{ ID string }
		if err := l.call(ctx, "GET", "/v1/me", l.payeeKeys[i], nil, &me); err != nil {
			return err
		}
		return l.call(ctx, "POST", "/v1/webhooks", l.admin, map[string]any{"wallet_id": me.ID, "url": url,
			"events": []string{"invoice.settled"}}, nil)
	})
	if err == nil {
		err = s.follow(sctx, l)
	}
	if err != nil {
		stop()
		return nil, fmt.Errorf("listening for the signals: %w", err)
	}
	return stop, nil
}

// follow reads the admin's stream of every event (GET /v1/events) until
// ctx ends.
func (s *signals) follow(ctx context.Context, l *operatorLoad) error {
	return load.ReadStream(ctx, l.inst.base+"/v1/events", l.admin, func(line []byte) {
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			s.heard(s.stream, data)
		}
	})
}

// wait waits until every payment of the pool's indexes [from, to) has
// its event on the stream and at the webhook, or says how many have not
// after patience.
func (s *signals) wait(ctx context.Context, from, to int64, patience time.Duration) error {
	deadline := time.Now().Add(patience)
	for {
		var stream, webhook int
		for j := from; j < to; j++ {
			if s.stream[j].Load() == 0 {
				stream++
			}
			if s.webhook[j].Load() == 0 {
				webhook++
			}
		}
		if stream == 0 && webhook == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %s, %d of %d payments' events had not reached the stream, %d the webhooks",
				patience, stream, to-from, webhook)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// delay is the p-th percentile of the delays from answer to arrival in at
// over the indexes [from, to); an event that came before its answer was
// read counts 0.
func (s *signals) delay(at []atomic.Int64, from, to int64, p float64) string {
	var ds []time.Duration
	for j := from; j < to; j++ {
		ds = append(ds, time.Duration(max(0, at[j].Load()-s.answered[j].Load())))
	}
	if len(ds) == 0 {
		return "-"
	}
	slices.Sort(ds)
	return stats.Round(stats.Percentile(ds, p)).String()
}
