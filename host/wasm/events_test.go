package wasm_test

import (
	"context"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// runDelivery runs e's event delivery until the returned stop, or the
// end of the test (before its database is closed: the delivery holds a
// connection for its lock), and waits until plugin name's worker has its
// cursor: the events written from then on are its.
func runDelivery(e *plugintest.Env, name string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.Registry.Run(ctx, e.Outbox) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	e.T.Cleanup(stop)
	e.Eventually("the cursor of "+name, func() bool {
		n, err := e.DB.R.NewSelect().Table("event_cursors").Where("name = ?", "plugin:"+name).Count(context.Background())
		return err == nil && n == 1
	})
	return stop
}

// delivered returns how many events e's noop plugin has had.
func delivered(t *testing.T, e *plugintest.Env) uint64 {
	t.Helper()
	p, err := e.Registry.Get("noop")
	if err != nil {
		t.Fatal(err)
	}
	return p.Info().Delivered
}

// A plugin's delivery stopped between events (a restart) resumes from its
// cursor in the new process: it gets the events written meanwhile, each
// once, and none of those it had already had.
func TestPluginDeliveryResumesFromItsCursor(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		first := plugintest.New(t, db, plugintest.Options{NoRun: true})
		w := first.Wallet("alice", 0)
		first.Install(plugin(t, "noop"), manifest("noop", []string{"read:transaction"}, event.InvoiceSettled))
		first.Enable("noop", w.ID, "read:transaction")
		stop := runDelivery(first, "noop")
		for range 3 {
			first.Wallet("alice", 1000)
		}
		first.Eventually("3 events delivered", func() bool { return delivered(t, first) == 3 })
		stop()
		for range 4 {
			first.Wallet("alice", 1000) // written, not delivered
		}
		if got := delivered(t, first); got != 3 {
			t.Fatalf("%d events delivered with delivery stopped", got)
		}

		second := plugintest.New(t, db, plugintest.Options{NoRun: true})
		if err := second.Registry.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer runDelivery(second, "noop")()
		second.Eventually("the 4 events written meanwhile", func() bool { return delivered(t, second) >= 4 })
		second.Wallet("alice", 1000)
		// In order: an event delivered twice would come before this one.
		second.Eventually("the next event", func() bool { return delivered(t, second) >= 5 })
		if got := delivered(t, second); got != 5 {
			t.Fatalf("the new process delivered %d events, want 5", got)
		}
	})
}

// On PostgreSQL two replicas deliver each event once: the one that leads;
// when it stops, the other takes over from the cursor.
func TestReplicasDeliverEachEventOnce(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	a := plugintest.New(t, db, plugintest.Options{NoRun: true})
	b := plugintest.New(t, storetest.Replica(t, db), plugintest.Options{NoRun: true})
	w := a.Wallet("alice", 0)
	a.Install(plugin(t, "noop"), manifest("noop", []string{"read:transaction"}, event.InvoiceSettled))
	a.Enable("noop", w.ID, "read:transaction")
	if err := b.Registry.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	b.Eventually("the plugin to run on the replica", func() bool {
		p, err := b.Registry.Get("noop")
		return err == nil && p.State() == host.Enabled
	})
	stopA := runDelivery(a, "noop")
	a.Wallet("alice", 1000)
	a.Eventually("a to lead and deliver", func() bool { return delivered(t, a) == 1 })
	defer runDelivery(b, "noop")()
	for range 3 {
		b.Wallet("alice", 1000)
	}
	a.Eventually("the leader to deliver every event", func() bool { return delivered(t, a) == 4 })
	stopA()
	for range 2 {
		b.Wallet("alice", 1000)
	}
	b.Eventually("the other replica to take over", func() bool { return delivered(t, b) == 2 })
	b.Wallet("alice", 1000)
	b.Eventually("the next event", func() bool { return delivered(t, b) == 3 })
	if da, db := delivered(t, a), delivered(t, b); da != 4 || db != 3 {
		t.Fatalf("delivered %d by a and %d by b, want 4 and 3", da, db)
	}
}

// A plugin's worker reads only the events it can be given: none while the
// plugin is bound to no wallet (as the built-ins are), then those of its
// wallet and types alone. Each worker once read every event of every
// wallet only to drop them, which halved internal payments (issue 38).
func TestPluginReadsOnlyItsEvents(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{NoRun: true})
		alice := e.Wallet("alice", 0)
		e.Install(plugin(t, "noop"), manifest("noop", []string{"read:transaction"}, event.InvoiceSettled))
		defer runDelivery(e, "noop")()
		before := e.Outbox.Stats()
		for range 4 {
			e.Wallet("bob", 1000) // the plugin is bound to no wallet yet
		}
		e.Enable("noop", alice.ID, "read:transaction")
		for range 3 {
			e.Wallet("bob", 1000) // not its wallet
		}
		e.Wallet("alice", 1000)
		e.Eventually("alice's event", func() bool { return delivered(t, e) == 1 })
		if got := e.Outbox.Stats().Records - before.Records; got != 1 {
			t.Fatalf("the plugin's worker read %d records for its one event", got)
		}
	})
}
