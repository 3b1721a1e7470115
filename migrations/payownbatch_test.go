package migrations_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// hearth_pay_own_batch answers each payment of a batch on its own: paid,
// refused with its SQLSTATE (a taken payment id, too little money, an
// amount that differs) or no row (no such invoice payable), every refusal
// undoing that payment alone. The paid ones carry distinct event ids from
// the sequence, each the second of its pair, a refused payment's id going
// to the next, and a batch that pays nothing takes none; hearth_pay_own
// pays one and raises its refusal.
func TestPayOwnBatchAnswersEachPayment(t *testing.T) {
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
		('payer', 'u1', 10000, now()), ('poor', 'u2', 500, now()), ('payee', 'u3', 0, now())`)
	for i := range 6 {
		exec(`INSERT INTO invoices (id, wallet_id, amount_msat, status, ledger, bolt11, payment_hash,
			payment_secret, payment_preimage, payee_pubkey, min_final_cltv_expiry_delta, expiry, expires_at, created_at)
			VALUES (?, 'payee', 1000, 'Pending', 'Lightning', ?, md5(?), md5(?), md5(?), 'pk', 18, 3600,
			now() + interval '1 hour', now())`, fmt.Sprint(i), "lnbcrt-"+string(rune('a'+i)), fmt.Sprint("h", i), fmt.Sprint("s", i), fmt.Sprint("p", i))
	}
	now := time.Now()
	item := func(bolt11, payer, id string, amount *int64) map[string]any {
		return map[string]any{"bolt11": bolt11, "payer": payer, "id": id, "now": now, "hash": "h", "amount": amount}
	}
	other := int64(999)
	items, err := json.Marshal([]map[string]any{
		item("lnbcrt-a", "payer", "p1", nil),
		item("lnbcrt-b", "payer", "p1", nil), // the id p1 is taken by then
		item("lnbcrt-c", "poor", "p3", nil),
		item("lnbcrt-d", "payer", "p4", &other),
		item("lnbcrt-unknown", "payer", "p5", nil),
		item("lnbcrt-e", "payer", "p6", nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.W.QueryContext(ctx, `SELECT b.ord, coalesce(b.err_code, ''), (b.inv).id IS NOT NULL
		FROM hearth_pay_own_batch(?::jsonb, false, true) AS b`, string(items))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var ord int
		var code string
		var paid bool
		if err := rows.Scan(&ord, &code, &paid); err != nil {
			t.Fatal(err)
		}
		answer := code
		if paid {
			answer = "paid"
		} else if code == "" {
			answer = "none"
		}
		got = append(got, answer)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"paid", "23505", "HR001", "HR002", "none", "paid"}
	if len(got) != len(want) {
		t.Fatalf("answers %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("answers %v, want %v", got, want)
		}
	}

	var payments, distinct, pairs int
	if err := db.W.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT event_id),
		count(*) FILTER (WHERE event_id % 2 = 0) FROM payments`).Scan(&payments, &distinct, &pairs); err != nil {
		t.Fatal(err)
	}
	if payments != 2 || distinct != 2 || pairs != 2 {
		t.Fatalf("%d payments, %d distinct event ids, %d the second of a pair", payments, distinct, pairs)
	}
	var span int64
	if err := db.W.QueryRowContext(ctx, `SELECT max(event_id) - min(event_id) FROM payments`).Scan(&span); err != nil {
		t.Fatal(err)
	}
	if span != 2 {
		t.Fatalf("the two payments' event ids are %d apart: the refused payments' ids were not given on", span)
	}
	var pending, payer, payee int64
	if err := db.W.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM invoices WHERE status = 'Pending'),
		(SELECT available_msat FROM wallets WHERE id = 'payer'), (SELECT available_msat FROM wallets WHERE id = 'payee')`).
		Scan(&pending, &payer, &payee); err != nil {
		t.Fatal(err)
	}
	if pending != 4 || payer != 8000 || payee != 2000 {
		t.Fatalf("%d invoices Pending, payer %d, payee %d msat", pending, payer, payee)
	}

	// A batch that pays nothing takes no event id: the outbox's head
	// moves for events only.
	last := func() int64 {
		t.Helper()
		var v int64
		if err := db.W.QueryRowContext(ctx, `SELECT last_value FROM events_id_seq`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := last()
	refused, err := json.Marshal([]map[string]any{item("lnbcrt-unknown", "payer", "p9", nil), item("lnbcrt-c", "poor", "p10", nil)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.W.ExecContext(ctx, `SELECT * FROM hearth_pay_own_batch(?::jsonb, false, true)`, string(refused)); err != nil {
		t.Fatal(err)
	}
	if after := last(); after != before {
		t.Fatalf("a batch that paid nothing moved the event ids from %d to %d", before, after)
	}

	// One payment alone: its refusal raised, its invoice as paid answered.
	var code string
	err = db.W.QueryRowContext(ctx, `SELECT id FROM hearth_pay_own('lnbcrt-c', 'poor', NULL, 'p7', now(), NULL, 'h', NULL)`).Scan(&code)
	if got, _ := store.Raised(err); got != "HR001" {
		t.Fatalf("a payment from too little money: %v", err)
	}
	var id string
	if err := db.W.QueryRowContext(ctx, `SELECT id FROM hearth_pay_own('lnbcrt-c', 'payer', NULL, 'p8', now(), NULL, 'h', 'k1')`).Scan(&id); err != nil || id != "2" {
		t.Fatalf("paying invoice 2 alone: %q, %v", id, err)
	}
}
