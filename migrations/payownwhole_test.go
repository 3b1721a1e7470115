package migrations_test

import (
	"fmt"
	"testing"
	"time"
)

// A batch whose payments can all be paid is paid whole, in one
// subtransaction (its payments share one xmin), with each payer debited
// and each payee credited by their sums, each wallet's updated_at its last
// payment's time, and each payment recorded as the loop records it: its
// payer, amount, invoice, key, request hash, API key and an event id of
// its own, the second of its pair.
func TestPayOwnBatchPaysAWholeBatchAtOnce(t *testing.T) {
	t.Parallel()
	b := newBatchDB(t, map[string]int64{"a": 10000, "b": 3000, "c": 0})
	for i := range 4 {
		b.invoice(fmt.Sprint("c", i), "c", 1000)
	}
	b.invoice("a0", "a", 500)
	b.invoice("b0", "b", 700)
	t0 := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	got := b.pay([]map[string]any{
		payItem("c0", "a", "p0", at(1)),
		payItem("c1", "b", "p1", at(2)),
		payItem("b0", "a", "p2", at(3)),
		payItem("unknown", "a", "p3", at(4)),
		payItem("a0", "b", "p4", at(5)),
		payItem("c2", "a", "p5", at(6)),
	})
	if fmt.Sprint(got) != "[paid paid paid none paid paid]" {
		t.Fatalf("answers %v", got)
	}
	want := map[string][3]int64{
		"a": {10000 - 2700 + 500, 2700, 500},
		"b": {3000 - 1500 + 700, 1500, 700},
		"c": {3000, 0, 3000},
	}
	if got := b.balances(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("wallets %v, want %v", got, want)
	}
	var updated time.Time
	if err := b.db.W.QueryRowContext(b.ctx, `SELECT updated_at FROM wallets WHERE id = 'a'`).Scan(&updated); err != nil || !updated.Equal(at(6)) {
		t.Fatalf("wallet a updated at %v (%v), want its last payment's %v", updated, err, at(6))
	}

	var n, xmins, events, pairs, span, wrong int64
	if err := b.db.W.QueryRowContext(b.ctx, `SELECT count(*), count(DISTINCT p.xmin::TEXT), count(DISTINCT p.event_id),
		count(*) FILTER (WHERE p.event_id % 2 = 0), max(p.event_id) - min(p.event_id),
		count(*) FILTER (WHERE p.api_key_id <> 'ak-' || p.wallet_id
			OR p.idempotency_key <> 'k-' || p.id OR p.request_hash <> 'rh-' || p.id
			OR p.amount_msat <> i.amount_msat OR p.bolt11 <> i.bolt11 OR p.payment_hash <> i.payment_hash
			OR p.payment_preimage <> i.payment_preimage OR p.status <> 'Settled' OR p.ledger <> 'Internal'
			OR p.fee_msat <> 0 OR p.created_at <> p.payment_time
			OR i.status <> 'Settled' OR i.ledger <> 'Internal' OR i.amount_received_msat <> i.amount_msat
			OR i.payment_time <> p.payment_time OR i.updated_at <> p.payment_time)
		FROM payments AS p JOIN invoices AS i ON i.payment_hash = p.payment_hash`).
		Scan(&n, &xmins, &events, &pairs, &span, &wrong); err != nil {
		t.Fatal(err)
	}
	if n != 5 || wrong != 0 {
		t.Fatalf("%d payments, %d recorded otherwise than paid", n, wrong)
	}
	if xmins != 1 {
		t.Fatalf("the payments were written by %d subtransactions: the batch was not paid whole", xmins)
	}
	if events != 5 || pairs != 5 || span != 8 {
		t.Fatalf("event ids: %d distinct, %d the second of a pair, spanning %d", events, pairs, span)
	}
	var times int64
	if err := b.db.W.QueryRowContext(b.ctx, `SELECT count(*) FROM payments WHERE (id, payment_time) IN
		(('p0', ?::timestamptz), ('p1', ?), ('p2', ?), ('p4', ?), ('p5', ?))`, at(1), at(2), at(3), at(5), at(6)).Scan(&times); err != nil || times != 5 {
		t.Fatalf("%d payments at their own time (%v)", times, err)
	}

	// Without p_whole the same kind of batch is paid one payment at a time.
	b.invoice("c4", "c", 1000)
	if got := b.payAs([]map[string]any{payItem("c3", "a", "p6", at(7)), payItem("c4", "b", "p7", at(8))}, false); fmt.Sprint(got) != "[paid paid]" {
		t.Fatalf("answers %v", got)
	}
	var parts int64
	if err := b.db.W.QueryRowContext(b.ctx, `SELECT count(DISTINCT xmin::TEXT) FROM payments WHERE id IN ('p6', 'p7')`).Scan(&parts); err != nil || parts != 2 {
		t.Fatalf("p_whole unset: %d subtransactions for 2 payments (%v)", parts, err)
	}
}

// A batch that cannot be paid whole is paid one payment at a time, in
// order, as if the whole pass had not been tried: a payer short of the sum
// of its payments pays the first and is refused the next (HR001), a payee
// pays with what an earlier payment of the batch brought it, and nothing of
// the undone pass remains (each payment its own subtransaction).
func TestPayOwnBatchFallsBackToOneAtATime(t *testing.T) {
	t.Parallel()
	b := newBatchDB(t, map[string]int64{"short": 1500, "payee": 0, "rich": 5000})
	b.invoice("x0", "payee", 1000)
	b.invoice("x1", "payee", 1000)
	b.invoice("r0", "rich", 1000)
	b.invoice("x2", "payee", 800)
	now := time.Now()
	got := b.pay([]map[string]any{
		payItem("x0", "short", "q0", now),
		payItem("x1", "short", "q1", now), // 500 msat left: refused
		payItem("r0", "payee", "q2", now), // paid from x0's 1000
		payItem("x2", "rich", "q3", now),
	})
	if fmt.Sprint(got) != "[paid HR001 paid paid]" {
		t.Fatalf("answers %v", got)
	}
	want := map[string][3]int64{
		"short": {500, 1000, 0},
		"payee": {1000 - 1000 + 800, 1000, 1800},
		"rich":  {5000 - 800 + 1000, 800, 1000},
	}
	if got := b.balances(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("wallets %v, want %v", got, want)
	}
	var n, xmins, pending int64
	if err := b.db.W.QueryRowContext(b.ctx, `SELECT count(*), count(DISTINCT xmin::TEXT),
		(SELECT count(*) FROM invoices WHERE status = 'Pending') FROM payments`).Scan(&n, &xmins, &pending); err != nil {
		t.Fatal(err)
	}
	if n != 3 || xmins != 3 || pending != 1 {
		t.Fatalf("%d payments from %d subtransactions, %d invoices Pending", n, xmins, pending)
	}

	// One refusal of any kind is enough: an amount that differs, an
	// idempotency key the payer used already.
	b.invoice("y0", "payee", 100)
	b.invoice("y1", "payee", 100)
	b.invoice("y2", "payee", 100)
	b.invoice("y3", "payee", 100)
	differs := payItem("y1", "rich", "q5", now)
	differs["amount"] = 99
	if got := b.pay([]map[string]any{payItem("y0", "rich", "q4", now), differs}); fmt.Sprint(got) != "[paid HR002]" {
		t.Fatalf("a batch with an amount that differs: %v", got)
	}
	again := payItem("y3", "rich", "q7", now)
	again["key"] = "k-q4"
	if got := b.pay([]map[string]any{payItem("y2", "rich", "q6", now), again}); fmt.Sprint(got) != "[paid 23505]" {
		t.Fatalf("a batch with a key used before: %v", got)
	}
	if got := b.balances()["rich"]; got != [3]int64{5000 - 800 + 1000 - 200, 1000, 1000} {
		t.Fatalf("rich holds %v", got)
	}
}
