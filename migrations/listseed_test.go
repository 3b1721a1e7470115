package migrations_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// listRows is how many payments and invoices seedLists makes: enough that
// the planners weigh reading a list's index against sorting the table.
const listRows = 20000

// seedLists fills db with 20 wallets and listRows payments and invoices
// across them, three at each instant (ties), with the mix of a busy
// instance: payments mostly Internal and Settled, a tenth Lightning, a few
// Onchain, Failed and Pending, a seventh made by its wallet's API key;
// invoices mostly Settled, a third Internal, some Pending and expired, a
// few Pending and live, a few Onchain. PostgreSQL's statistics are taken;
// SQLite's are not, as Hearth takes none.
func seedLists(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	pg := db.Dialect == store.Postgres
	seq, at, pad, live := `generate_series(1, ?) AS g(n)`, `(timestamptz '2026-01-01 00:00:00+00' + (n / 3) * interval '1 millisecond')`,
		`lpad(n::text, 7, '0')`, `now() + interval '1 hour'`
	if !pg {
		seq = `(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ?) SELECT n FROM s) AS g`
		at = `(strftime('%Y-%m-%d %H:%M:%f', '2026-01-01', '+' || ((n / 3) * 0.001) || ' seconds') || '+00:00')`
		pad = `substr('0000000' || n, -7, 7)`
		live = `strftime('%Y-%m-%d %H:%M:%S+00:00', 'now', '+1 hour')`
	}
	r := strings.NewReplacer("{seq}", seq, "{at}", at, "{pad}", pad, "{live}", live)
	for _, q := range []string{
		`INSERT INTO wallets (id, user_id, created_at) SELECT 'w' || n, 'u' || n, {at} FROM {seq}`,
		`INSERT INTO payments (id, wallet_id, amount_msat, status, ledger, payment_hash, api_key_id, created_at)
		 SELECT 'p' || {pad}, 'w' || (n % 20 + 1), 1000,
		        CASE WHEN n % 50 = 0 THEN 'Failed' WHEN n % 500 = 1 THEN 'Pending' ELSE 'Settled' END,
		        CASE WHEN n % 10 = 0 THEN 'Lightning' WHEN n % 200 = 3 THEN 'Onchain' ELSE 'Internal' END,
		        'h' || n, CASE WHEN n % 7 = 0 THEN 'k' || (n % 20 + 1) END, {at}
		   FROM {seq}`,
		`INSERT INTO invoices (id, wallet_id, amount_msat, status, ledger, bolt11, payment_hash, payment_secret,
		        payee_pubkey, min_final_cltv_expiry_delta, expiry, expires_at, created_at)
		 SELECT 'i' || {pad}, 'w' || (n % 20 + 1), 1000,
		        CASE WHEN n % 20 = 0 OR n % 400 = 1 THEN 'Pending' ELSE 'Settled' END,
		        CASE WHEN n % 300 = 2 THEN 'Onchain' WHEN n % 3 = 0 THEN 'Internal' ELSE 'Lightning' END,
		        'lnbcrt' || n, 'h' || n, 's' || n, 'pk', 18, 3600,
		        CASE WHEN n % 400 = 1 THEN {live} ELSE {at} END, {at}
		   FROM {seq}`,
	} {
		n := listRows
		if strings.HasPrefix(q, "INSERT INTO wallets") {
			n = 20
		}
		if _, err := db.W.ExecContext(ctx, r.Replace(q), n); err != nil {
			t.Fatalf("seeding: %v\n%s", err, r.Replace(q))
		}
	}
	if pg {
		if _, err := db.W.ExecContext(ctx, `ANALYZE wallets, payments, invoices`); err != nil {
			t.Fatal(err)
		}
	}
}

// queryLog keeps the last SELECT a bun.DB ran, as it sent it.
type queryLog struct {
	mu   sync.Mutex
	last string
}

func (l *queryLog) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (l *queryLog) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if strings.HasPrefix(e.Query, "SELECT") {
		l.mu.Lock()
		l.last = e.Query
		l.mu.Unlock()
	}
}

// take returns the last SELECT and forgets it.
func (l *queryLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.last
	l.last = ""
	return q
}
