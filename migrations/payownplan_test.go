package migrations_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// A batch looks its invoices up by their text through their unique index,
// whatever the statistics say. With statistics taken while no invoice was
// Pending (a new server's first payments), an UPDATE with the invoice's
// status in its condition, the batch's as the one-row one of a payment at
// a time, was planned through invoices_pending_idx, which then looked
// nearly empty, and read every Pending invoice until the next ANALYZE.
func TestPayOwnBatchLooksInvoicesUpByText(t *testing.T) {
	t.Parallel()
	b := newBatchDB(t, map[string]int64{"a": 1000000, "c": 0})
	conn, err := b.db.W.Conn(b.ctx) // one session: its plans are kept
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	now := time.Now()
	batch := func(q string, bolt11s ...string) *sql.Row {
		t.Helper()
		var items []map[string]any
		for i, s := range bolt11s {
			items = append(items, payItem(s, "a", fmt.Sprint(s, "-", i), now))
		}
		arg, err := json.Marshal(items)
		if err != nil {
			t.Fatal(err)
		}
		return conn.QueryRowContext(b.ctx, q, string(arg))
	}
	const pay = `SELECT count(*) FILTER (WHERE (b.inv).id IS NOT NULL) FROM hearth_pay_own_batch(?::jsonb, false, true) AS b`
	for i := range 8 { // past the plans made for the first five calls
		b.invoice(fmt.Sprint("small-", i, "-a"), "c", 1000)
		b.invoice(fmt.Sprint("small-", i, "-b"), "c", 1000)
		var paid int
		if err := batch(pay, fmt.Sprint("small-", i, "-a"), fmt.Sprint("small-", i, "-b")).Scan(&paid); err != nil || paid != 2 {
			t.Fatalf("small batch %d: %d paid (%v)", i, paid, err)
		}
	}
	// Statistics taken while no invoice was Pending, then many made: the
	// planner believes Pending invoices few, and reading them all through
	// invoices_pending_idx cheap.
	b.exec(`ANALYZE invoices`)
	b.exec(`INSERT INTO invoices (id, wallet_id, amount_msat, status, ledger, bolt11, payment_hash,
		payment_secret, payment_preimage, payee_pubkey, min_final_cltv_expiry_delta, expiry, expires_at, created_at)
		SELECT 'bulk-' || g, 'c', 1000, 'Pending', 'Lightning', 'lnbcrt-bulk-' || g, md5('h' || g), md5('s' || g),
		       md5('p' || g), 'pk', 18, 3600, now() + interval '1 hour', now()
		  FROM generate_series(1, 20000) AS g`)
	// In a transaction of the same session, whose own counts the view shows.
	if _, err := conn.ExecContext(b.ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(b.ctx, "ROLLBACK") //nolint:errcheck // read, then undone
	var paid int
	if err := batch(pay, "lnbcrt-bulk-7", "lnbcrt-bulk-9001").Scan(&paid); err != nil || paid != 2 {
		t.Fatalf("the batch after: %d paid (%v)", paid, err)
	}
	var read int64
	if err := conn.QueryRowContext(b.ctx, `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)
		FROM pg_stat_xact_user_tables WHERE relid = 'invoices'::regclass`).Scan(&read); err != nil {
		t.Fatal(err)
	}
	if read > 100 { // a lookup each, with what its index leads to; not 20,000
		t.Fatalf("paying two invoices read %d rows of invoices", read)
	}
	// And one payment alone, which the loop pays.
	var id string
	if err := conn.QueryRowContext(b.ctx, `SELECT id FROM hearth_pay_own('lnbcrt-bulk-42', 'a', NULL, 'p-one', now(), NULL, 'h', NULL)`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	var after int64
	if err := conn.QueryRowContext(b.ctx, `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)
		FROM pg_stat_xact_user_tables WHERE relid = 'invoices'::regclass`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after-read > 100 {
		t.Fatalf("paying one invoice alone read %d rows of invoices", after-read)
	}
}
