package ledger

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
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

// TestBatchPaidInPartsAfterARefusal checks that after a batch tried whole
// had a refusal (and so was paid one payment at a time after its whole
// pass), the next partBatches batches are not tried whole, and the one
// after them is: a client whose payments are refused costs the others a
// wasted pass at most once in partBatches+1 batches.
func TestBatchPaidInPartsAfterARefusal(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.W.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO wallets (id, user_id, available_msat, created_at) VALUES
		('payer', 'u1', 1000000, now()), ('poor', 'u2', 0, now()), ('payee', 'u3', 0, now())`)
	n := 0
	call := func(payer string) *ownCall {
		n++
		bolt11 := fmt.Sprint("lnbcrt-", n)
		exec(`INSERT INTO invoices (id, wallet_id, amount_msat, status, ledger, bolt11, payment_hash,
			payment_secret, payment_preimage, payee_pubkey, min_final_cltv_expiry_delta, expiry, expires_at, created_at)
			VALUES (?, 'payee', 1000, 'Pending', 'Lightning', ?, md5(?), md5(?), md5(?), 'pk', 18, 3600,
			now() + interval '1 hour', now())`, fmt.Sprint("i", n), bolt11, bolt11+"h", bolt11+"s", bolt11+"p")
		return &ownCall{ctx: ctx, item: ownItem{Bolt11: bolt11, Payer: payer, ID: fmt.Sprint("p", n), Now: time.Now(), Hash: "h"}}
	}
	b := &ownBatcher{db: db}
	run := func(calls ...*ownCall) {
		t.Helper()
		b.runBatch(calls)
		for _, c := range calls {
			if c.item.Payer == "payer" && (c.err != nil || c.inv == nil) {
				t.Fatalf("payment %s: %v", c.item.ID, c.err)
			}
		}
	}
	run(call("payer"), call("payer"))
	if got := b.wholeTries.Load(); got != 1 {
		t.Fatalf("%d batches tried whole, want 1", got)
	}
	refused := call("poor")
	run(call("payer"), refused)
	if code, _ := store.Raised(refused.err); code != "HR001" {
		t.Fatalf("the poor payer's payment: %v", refused.err)
	}
	for range partBatches {
		run(call("payer"), call("payer"))
	}
	if got := b.wholeTries.Load(); got != 2 {
		t.Fatalf("%d batches tried whole after a refusal and %d more, want 2", got, partBatches)
	}
	run(call("payer"), call("payer"))
	if got := b.wholeTries.Load(); got != 3 {
		t.Fatalf("%d batches tried whole, want 3: the batch after the parts is tried whole again", got)
	}
	var paid int
	if err := db.W.QueryRowContext(ctx, `SELECT count(*) FROM payments`).Scan(&paid); err != nil || paid != 2*partBatches+5 {
		t.Fatalf("%d payments recorded (%v), want %d", paid, err, 2*partBatches+5)
	}
}
