package ledger

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store/storetest"
)

// TestBatchSkipsPaymentsCancelledWhileQueued checks that a payment whose
// context ends while it waits for the batch in flight is answered its
// context's error when its turn comes, and sent to the database in no
// batch.
func TestBatchSkipsPaymentsCancelledWhileQueued(t *testing.T) {
	t.Parallel()
	b := &ownBatcher{db: storetest.Postgres(t)}
	b.running = true // a batch is in flight: the payment queues behind it
	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan error, 1)
	go func() {
		_, err := b.pay(ctx, ownItem{Bolt11: "lnbcrt1", Payer: "nobody", ID: "p", Now: time.Now(), Hash: "h"})
		answered <- err
	}()
	for queued := false; !queued; {
		b.mu.Lock()
		queued = len(b.queue) == 1
		b.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	cancel()
	b.next() // the batch in flight ends; the queue's turn
	select {
	case err := <-answered:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("pay = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled payment was never answered")
	}
	if n := b.batches.Load(); n != 0 {
		t.Fatalf("%d batches sent for a cancelled payment", n)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running || len(b.queue) != 0 {
		t.Fatalf("running %v with %d queued after the queue emptied", b.running, len(b.queue))
	}
}
