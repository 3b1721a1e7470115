package wasm_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/hosttest"
)

// BenchmarkPaymentP99 drives internal payments through the ledger from 50
// goroutines and reports their p99 latency: "idle" with no plugin, and
// "hostile" with two hostile plugins subscribed to the payee's settled
// invoices, one looping until its 2 s deadline and one allocating until its
// 32 MiB cap, and re-enabled at once whenever they are marked failed (the
// worst case: an admin who keeps re-enabling them). Compare the p99-µs of
// the two. Speed is measured, never asserted.
func BenchmarkPaymentP99(b *testing.B) {
	// The hostile plugins' faults would drown the results in log lines.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler))
	for _, mode := range []string{"idle", "hostile-until-failed", "hostile-kept-alive"} {
		b.Run(mode, func(b *testing.B) { benchmarkPayments(b, mode) })
	}
}

// benchmarkPayments runs the payments; mode "idle" has no plugin,
// "hostile-until-failed" lets the fault policy fail the hostile plugins,
// "hostile-kept-alive" re-enables them whenever they fail.
func benchmarkPayments(b *testing.B, mode string) {
	hostile := mode != "idle"
	const payers = 50
	e := hosttest.New(b, storetest.SQLite(b), hosttest.Options{})
	ctx := context.Background()
	payee := e.Wallet("payee", 0)
	ids := make(chan string, payers)
	for i := range payers {
		ids <- e.Wallet(fmt.Sprintf("payer-%d", i), 100_000_000).ID
	}
	stop := make(chan struct{})
	var keeper sync.WaitGroup
	if hostile {
		module := plugin(b, "hostile")
		for _, mode := range []string{"loop", "bomb"} {
			name := "hostile-" + mode
			e.Install(module, hostileManifestWith(name, 2000))
			cfg := []byte(fmt.Sprintf(`{"mode":%q}`, mode))
			if _, err := e.Registry.Configure(ctx, name, cfg); err != nil {
				b.Fatal(err)
			}
			e.Enable(name, payee.ID, "read:transaction")
			p, _ := e.Registry.Get(name)
			keeper.Add(1)
			go func() {
				defer keeper.Done()
				tick := time.NewTicker(10 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if mode == "hostile-kept-alive" && p.State() == host.Failed {
							e.Registry.Enable(ctx, name, []string{"read:transaction"}, payee.ID) //nolint:errcheck
						}
					}
				}
			}()
		}
	}
	var mu sync.Mutex
	lat := make([]time.Duration, 0, b.N)
	var failed atomic.Int64
	b.SetParallelism(payers / max(1, runtimeProcs()))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		payer := <-ids
		var mine []time.Duration
		for pb.Next() {
			inv, err := e.Ledger.CreateInvoice(ctx, payee.ID, ledger.NewInvoice{AmountMsat: 1000})
			if err != nil {
				failed.Add(1)
				continue
			}
			start := time.Now()
			_, _, err = e.Ledger.Pay(ctx, payer, ledger.PayRequest{Input: inv.Bolt11})
			mine = append(mine, time.Since(start))
			if err != nil {
				failed.Add(1)
			}
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	close(stop)
	keeper.Wait()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d payments failed", n)
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	}
}
