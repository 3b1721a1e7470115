package wasm_test

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/plugintest"
)

// BenchmarkPaymentP99 drives internal payments through the ledger from 50
// goroutines, each payer paying a payee of its own, and reports their p50
// and p99 latency with no plugin ("idle"), then with one hostile plugin
// bound to one of the payees and subscribed to its settled invoices:
// "loop" loops until its 2 s deadline, "bomb" allocates until its 32 MiB
// cap, "panic" panics; each runs until the fault policy fails it. Then
// "loop+bomb" runs two at once, and "loop+bomb-kept-alive" re-enables them
// whenever they are marked failed (an admin who keeps re-enabling them).
// Last, "spinner" runs no plugin but another process that spins on one
// CPU all along at the priority of guest code: what any busy CPU at the
// lowest priority costs payments on the machine, for comparison; and
// "spinner-25" one that spins a quarter of the time (1 ms in every 4).
// Compare the p99-µs of each mode with idle's, over interleaved runs
// (-count). Each run also reports the CPU time the whole process used per
// payment (cpu-µs/op: what the hostile plugins add shows there) and how
// often the plugins were re-enabled. Speed is measured, never asserted.
func BenchmarkPaymentP99(b *testing.B) {
	// The hostile plugins' faults would drown the results in log lines.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler))
	for _, mode := range []string{"idle", "loop", "bomb", "panic", "loop+bomb", "loop+bomb-kept-alive", "spinner", "spinner-25"} {
		b.Run(mode, func(b *testing.B) { benchmarkPayments(b, mode) })
	}
}

// benchmarkPayments runs the payments in mode (see BenchmarkPaymentP99).
func benchmarkPayments(b *testing.B, mode string) {
	hostiles, keptAlive := strings.CutSuffix(mode, "-kept-alive")
	const payers = 50
	e := plugintest.New(b, storetest.SQLite(b), plugintest.Options{IdlePriority: true})
	ctx := context.Background()
	type pair struct{ payer, payee string }
	pairs := make(chan pair, payers)
	var payee string // the hostile plugins' wallet
	for i := range payers {
		to := e.Wallet(fmt.Sprintf("payee-%d", i), 0).ID
		if i == 0 {
			payee = to
		}
		pairs <- pair{e.Wallet(fmt.Sprintf("payer-%d", i), 100_000_000).ID, to}
	}
	stop := make(chan struct{})
	var keeper sync.WaitGroup
	var enables atomic.Int64
	if duty, ok := strings.CutPrefix(hostiles, "spinner"); ok {
		startSpinner(b, strings.TrimPrefix(duty, "-"))
	} else if hostiles != "idle" {
		module := plugin(b, "hostile")
		for _, mode := range strings.Split(hostiles, "+") {
			name := "hostile-" + mode
			e.Install(module, hostileManifestWith(name, 2000))
			cfg := []byte(fmt.Sprintf(`{"mode":%q}`, mode))
			if _, err := e.Registry.Configure(ctx, name, cfg); err != nil {
				b.Fatal(err)
			}
			e.Enable(name, payee, "read:transaction")
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
						if keptAlive && p.State() == host.Failed {
							e.Registry.Enable(ctx, plugintest.Admin, name, []string{"read:transaction"}, payee) //nolint:errcheck
							enables.Add(1)
						}
					}
				}
			}()
		}
	}
	var mu sync.Mutex
	all := make([]time.Duration, 0, b.N)
	var failed atomic.Int64
	b.SetParallelism(payers / max(1, runtimeProcs()))
	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0) //nolint:errcheck
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		mine := <-pairs
		var lat []time.Duration
		for pb.Next() {
			inv, err := e.Ledger.CreateInvoice(ctx, mine.payee, ledger.NewInvoice{AmountMsat: 1000})
			if err != nil {
				failed.Add(1)
				continue
			}
			start := time.Now()
			_, _, err = e.Ledger.Pay(ctx, mine.payer, ledger.PayRequest{Input: inv.Bolt11})
			lat = append(lat, time.Since(start))
			if err != nil {
				failed.Add(1)
			}
		}
		mu.Lock()
		all = append(all, lat...)
		mu.Unlock()
	})
	b.StopTimer()
	var ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1) //nolint:errcheck
	cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
	close(stop)
	keeper.Wait()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d payments failed", n)
	}
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
		b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(cpu)/1e3/float64(len(all)), "cpu-µs/op")
		b.ReportMetric(float64(enables.Load()), "re-enables")
	}
}

// spinEnv makes TestSpinner spin.
const spinEnv = "HEARTH_P99_SPINNER"

// startSpinner starts this test binary again as a process that spins (see
// TestSpinner) percent of the time ("" for all of it), and stops it when b
// ends.
func startSpinner(b *testing.B, percent string) {
	if runtime.GOOS != "linux" {
		b.Skip("thread priorities: Linux only")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSpinner$")
	cmd.Env = append(os.Environ(), spinEnv+"="+cmp.Or(percent, "100"))
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck // it may be gone
		cmd.Wait()         //nolint:errcheck // killed
	})
}

// TestSpinner is the spinner of BenchmarkPaymentP99: one thread at guest
// code's priority that spins the percent of each 4 ms that spinEnv gives
// and sleeps the rest, until its parent is gone. It skips in a test run.
func TestSpinner(t *testing.T) {
	percent, err := strconv.Atoi(os.Getenv(spinEnv))
	if err != nil {
		t.Skip("the spinner of BenchmarkPaymentP99")
	}
	runtime.LockOSThread()
	if err := wasm.LowerPriority(); err != nil {
		t.Fatal(err)
	}
	const period = 4 * time.Millisecond
	spin := period * time.Duration(percent) / 100
	for parent := os.Getppid(); os.Getppid() == parent; {
		for end := time.Now().Add(spin); time.Now().Before(end); {
		}
		if spin < period {
			time.Sleep(period - spin)
		}
	}
}
