package wasm_test

import (
	"context"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/plugintest"
)

// BenchmarkEventDelivery is the cost of delivering one invoice.settled
// event (a real invoice record) to a no-op plugin with a warm pool, from a
// goroutine pinned to a thread of the lowest priority, as the plugin's
// event worker does.
func BenchmarkEventDelivery(b *testing.B) { benchmarkEvents(b, true) }

// BenchmarkEventDeliveryHandoff is BenchmarkEventDelivery from an ordinary
// goroutine: each event is handed to one of the executor's threads.
func BenchmarkEventDeliveryHandoff(b *testing.B) { benchmarkEvents(b, false) }

func benchmarkEvents(b *testing.B, pin bool) {
	// The cost of a delivery, its CPU accounting included, not the share's
	// policy: events back to back would use the plugin's share in a few
	// ms and then wait for it, so the plugin may use the whole CPU here.
	e := plugintest.New(b, storetest.SQLite(b), plugintest.Options{NoRun: true, CPUShare: 1, IdlePriority: true})
	w := e.Wallet("alice", 0)
	e.Install(plugin(b, "noop"), manifest("noop", []string{"read:transaction"}, event.InvoiceSettled))
	e.Enable("noop", w.ID, "read:transaction")
	p, err := e.Registry.Get("noop")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	inv, err := e.Ledger.CreateInvoice(ctx, w.ID, ledger.NewInvoice{AmountMsat: 1000})
	if err != nil {
		b.Fatal(err)
	}
	payload, err := host.EncodeEvent(event.Event{Type: event.InvoiceSettled, WalletID: w.ID, ID: inv.ID, At: time.Now(), Data: inv})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	done := make(chan error)
	// A pinned goroutine keeps its thread for good: a new one, which ends
	// with its thread.
	go func() {
		ctx := ctx
		if pin {
			ctx = e.Runtime.Pin(ctx)
		}
		b.ResetTimer()
		for range b.N {
			if err := e.Registry.Deliver(ctx, p, payload); err != nil {
				done <- err
				return
			}
		}
		b.StopTimer()
		done <- nil
	}()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// BenchmarkHostCall is the cost of one host call from a plugin: the noop
// plugin's bench_ping export calls the host's ping (which passes the grant
// check) n times; ns/op is per host call.
func BenchmarkHostCall(b *testing.B) {
	e := plugintest.New(b, storetest.SQLite(b), plugintest.Options{NoRun: true, IdlePriority: true})
	e.Install(plugin(b, "noop"), manifest("noop", nil))
	e.Enable("noop", "")
	p, err := e.Registry.Get("noop")
	if err != nil {
		b.Fatal(err)
	}
	r := wasm.Runner(p)
	ctx := context.Background()
	if _, err := wasm.CallExport(ctx, r, "bench_ping", 1); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	const batch = 1000
	n := b.N
	for n > 0 {
		k := min(n, batch)
		if res, err := wasm.CallExport(ctx, r, "bench_ping", uint64(k)); err != nil || res != 0 {
			b.Fatalf("bench_ping: %d %v", res, err)
		}
		n -= k
	}
}

// BenchmarkGuestEntry is the bare cost of one call into a Go plugin: an
// export that returns its argument, on a warm instance.
func BenchmarkGuestEntry(b *testing.B) {
	e := plugintest.New(b, storetest.SQLite(b), plugintest.Options{NoRun: true, IdlePriority: true})
	e.Install(plugin(b, "noop"), manifest("noop", nil))
	e.Enable("noop", "")
	p, err := e.Registry.Get("noop")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if err := wasm.NopLoop(wasm.Runner(p), "bench_nop", b.N); err != nil {
		b.Fatal(err)
	}
}
