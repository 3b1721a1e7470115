// Package signals is loadbench -signals: how soon a payment's signals
// reach their listeners while payments run. One `hearth serve` of a build
// per database, set up as an A/B instance is (internal/operator), with a
// webhook of invoice.settled on every payee wallet, received by a server
// of loadbench's process, and one client of the admin's stream of every
// wallet's events (GET /v1/events), as an open dashboard would be. For
// each payment, the delay from its answer to its invoice's
// invoice.settled event on the stream and at the webhook: at a fixed
// rate, then flat out. An event that never comes fails the run.
package signals

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/hearthbin"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/operator"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// Options shape a run.
type Options struct {
	Build            string // a git revision, a hearth binary, or "." (the working tree)
	Clients          int
	Warmup, Payments int // of the flat-out phase: unmeasured, then measured
	Rate             float64
	RatePayments     int           // measured at Rate
	Quiet            float64       // a phase starts once the processors were busy less than this share of a second …
	QuietWait        time.Duration // … or after this long
	// Rounds of flat out with the webhooks and without them, interleaved,
	// after the two phases: what delivering costs paying.
	Rounds int
}

// perClient is how many payments each client makes in all.
func (o Options) perClient() int {
	return (1+2*o.Rounds)*(o.Warmup+o.Payments)/o.Clients + o.RatePayments/o.Clients
}

// Run measures the signals on each of databases (comma separated) and
// prints them on stdout; it stops at the first database that fails.
func Run(ctx context.Context, databases, pgURL string, o Options) error {
	b, err := hearthbin.Make(ctx, "B", o.Build)
	if err != nil {
		return err
	}
	defer b.Remove()
	fmt.Printf("loadbench -signals: %s; %d clients paying %d payees at random over HTTP from another process, "+
		"a webhook of invoice.settled on each payee and the admin's stream of every event; %d at %.0f/s, then %d flat out\n",
		b.Name, o.Clients, o.Clients, o.RatePayments, o.Rate, o.Payments)
	for n, name := range strings.Split(databases, ",") {
		name = strings.TrimSpace(name)
		if err := on(ctx, name, pgURL, b, o, n); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// on runs the phases on one database, the n-th.
func on(ctx context.Context, name, pgURL string, b hearthbin.Build, o Options, n int) error {
	pg := machine.Meter{}
	if name == "postgres" {
		pg = machine.PostgresMeter(ctx, pgURL)
	}
	b.Env = append(slices.Clip(b.Env), "HEARTH_PLUGINS_ALLOW_PRIVATE_HOSTS=true") // the webhooks' receiver is on loopback
	srv, err := hearthbin.Start(ctx, b, name, pgURL, 2000+n)
	if err != nil {
		return err
	}
	defer srv.Stop()
	l, err := operator.New(ctx, srv, o.Clients, o.perClient(), pg)
	if err != nil {
		return err
	}
	defer l.Close()
	s := newArrivals(l.Pool())
	l.OnAnswered(func(j int64) { s.answered[j].Store(time.Now().UnixNano()) })
	stop, err := s.listen(ctx, l, srv.Base())
	if err != nil {
		return err
	}
	defer stop()
	for _, ph := range []struct {
		name      string
		warm, per int
		rate      float64
	}{
		{name: fmt.Sprintf("at %.0f/s", o.Rate), per: o.RatePayments / o.Clients, rate: o.Rate},
		{name: "flat out", warm: o.Warmup / o.Clients, per: o.Payments / o.Clients},
	} {
		machine.WaitQuiet(o.Quiet, o.QuietWait)
		if ph.warm > 0 {
			if _, err := l.Phase(ph.name+" (warm-up)", 0, ph.warm, ph.rate); err != nil {
				return err
			}
		}
		from := l.Next()
		r, err := l.Phase(ph.name, 0, ph.per, ph.rate)
		if err != nil {
			return fmt.Errorf("%s: %w; its log: %s", ph.name, err, srv.Log())
		}
		to := l.Next()
		if err := s.wait(ctx, from, to, true, 30*time.Second); err != nil {
			return fmt.Errorf("%s: %w", ph.name, err)
		}
		fmt.Printf("%-9s %-10s %6.0f/s  payment p50 %8s p99 %8s | stream p50 %8s p99 %8s max %8s | webhook p50 %8s p99 %8s max %8s\n",
			name, ph.name, r.Rate(), stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)),
			s.delay(s.stream, from, to, 50), s.delay(s.stream, from, to, 99), s.delay(s.stream, from, to, 100),
			s.delay(s.webhook, from, to, 50), s.delay(s.webhook, from, to, 99), s.delay(s.webhook, from, to, 100))
	}
	if err := rounds(ctx, name, l, s, o); err != nil {
		return err
	}
	return l.Verify(ctx)
}

// rounds runs o.Rounds rounds of flat out with the webhooks and without
// them (deleted, then made again), which first alternating, and prints
// each and the ratio of the medians.
func rounds(ctx context.Context, name string, l *operator.Load, s *arrivals, o Options) error {
	var with, without []float64
	for r := range o.Rounds {
		for k := range 2 {
			hooked := (r+k)%2 == 0
			if err := s.hook(ctx, l, hooked); err != nil {
				return err
			}
			machine.WaitQuiet(o.Quiet, o.QuietWait)
			label := "no webhooks"
			if hooked {
				label = fmt.Sprintf("%d webhooks", len(l.PayeeKeys()))
			}
			if _, err := l.Phase(label+" (warm-up)", 0, o.Warmup/o.Clients, 0); err != nil {
				return err
			}
			from := l.Next()
			res, err := l.Phase(label, 0, o.Payments/o.Clients, 0)
			if err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
			to := l.Next()
			if err := s.wait(ctx, from, to, hooked, 60*time.Second); err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
			line := fmt.Sprintf("%-9s round %d, flat out, %-12s %6.0f/s  payment p99 %8s | stream p99 %8s", name, r+1, label,
				res.Rate(), stats.Round(res.Percentile(99)), s.delay(s.stream, from, to, 99))
			if hooked {
				with = append(with, res.Rate())
				line += fmt.Sprintf(" | webhook p50 %8s p99 %8s", s.delay(s.webhook, from, to, 50), s.delay(s.webhook, from, to, 99))
			} else {
				without = append(without, res.Rate())
			}
			fmt.Println(line)
		}
	}
	if len(with) > 0 {
		fmt.Printf("%-9s flat out with the webhooks %.0f/s, without %.0f/s (medians of %d rounds): %.2f×\n", name,
			median(with), median(without), len(with), median(with)/median(without))
	}
	return nil
}

// median is the median of xs (not empty).
func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
