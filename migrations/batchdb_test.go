package migrations_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// batchDB is a migrated PostgreSQL database with wallets and Pending
// invoices made to order, and hearth_pay_own_batch to call on them.
type batchDB struct {
	t   *testing.T
	db  *store.DB
	ctx context.Context
}

func newBatchDB(t *testing.T, wallets map[string]int64) *batchDB {
	t.Helper()
	b := &batchDB{t: t, db: storetest.Postgres(t), ctx: context.Background()}
	for id, msat := range wallets {
		b.exec(`INSERT INTO wallets (id, user_id, available_msat, created_at) VALUES (?, ?, ?, now())`, id, "u-"+id, msat)
	}
	return b
}

func (b *batchDB) exec(q string, args ...any) {
	b.t.Helper()
	if _, err := b.db.W.ExecContext(b.ctx, q, args...); err != nil {
		b.t.Fatal(err)
	}
}

// invoice makes a Pending invoice of wallet for msat, with text bolt11.
func (b *batchDB) invoice(bolt11, wallet string, msat int64) {
	b.t.Helper()
	b.exec(`INSERT INTO invoices (id, wallet_id, amount_msat, status, ledger, bolt11, payment_hash,
		payment_secret, payment_preimage, payee_pubkey, min_final_cltv_expiry_delta, expiry, expires_at, created_at)
		VALUES (?, ?, ?, 'Pending', 'Lightning', ?, md5(?), md5(?), md5(?), 'pk', 18, 3600,
		now() + interval '1 hour', now())`, "inv-"+bolt11, wallet, msat, bolt11, "h"+bolt11, "s"+bolt11, "p"+bolt11)
}

// pay runs one batch, tried whole first, and answers, per payment,
// "paid", its SQLSTATE, or "none".
func (b *batchDB) pay(items []map[string]any) []string {
	b.t.Helper()
	return b.payAs(items, true)
}

// payAs runs one batch, tried whole first if whole is set.
func (b *batchDB) payAs(items []map[string]any, whole bool) []string {
	b.t.Helper()
	arg, err := json.Marshal(items)
	if err != nil {
		b.t.Fatal(err)
	}
	rows, err := b.db.W.QueryContext(b.ctx, `SELECT coalesce(b.err_code, ''), (b.inv).id IS NOT NULL
		FROM hearth_pay_own_batch(?::jsonb, false, ?) AS b ORDER BY b.ord`, string(arg), whole)
	if err != nil {
		b.t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var code string
		var paid bool
		if err := rows.Scan(&code, &paid); err != nil {
			b.t.Fatal(err)
		}
		switch {
		case paid:
			got = append(got, "paid")
		case code == "":
			got = append(got, "none")
		default:
			got = append(got, code)
		}
	}
	if err := rows.Err(); err != nil {
		b.t.Fatal(err)
	}
	return got
}

// balances answers each wallet's available, sent and received msat.
func (b *batchDB) balances() map[string][3]int64 {
	b.t.Helper()
	rows, err := b.db.W.QueryContext(b.ctx, `SELECT id, available_msat, sent_msat, received_msat FROM wallets`)
	if err != nil {
		b.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][3]int64{}
	for rows.Next() {
		var id string
		var v [3]int64
		if err := rows.Scan(&id, &v[0], &v[1], &v[2]); err != nil {
			b.t.Fatal(err)
		}
		out[id] = v
	}
	return out
}

func payItem(bolt11, payer, id string, at time.Time) map[string]any {
	return map[string]any{"bolt11": bolt11, "payer": payer, "id": id, "now": at, "hash": "rh-" + id,
		"key": "k-" + id, "api_key": "ak-" + payer}
}
