package migrations_test

import (
	"context"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/migrations"
)

// 20261127000004 turns each invoice's ln_address_id into lnurl's tag of
// that value, and back: down again, the Lightning Address's invoices keep
// their address (other plugins' tags are lost, as that schema had none),
// and up again they are lnurl's once more; the other invoices carry none.
func TestInvoiceTagsMigrateBothWays(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if err := migrations.InvoiceTagsDown(ctx, db.W); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		if _, err := db.W.ExecContext(ctx, `INSERT INTO wallets (id, user_id, created_at) VALUES ('w', 'u', ?)`, now); err != nil {
			t.Fatal(err)
		}
		for i, addr := range []any{"address-1", nil} {
			id := []string{"addressed", "plain"}[i]
			if _, err := db.W.ExecContext(ctx, `INSERT INTO invoices (id, wallet_id, ln_address_id, status, ledger, bolt11,
				payment_hash, payment_secret, payee_pubkey, min_final_cltv_expiry_delta, expiry, expires_at, created_at)
				VALUES (?, 'w', ?, 'Pending', 'Lightning', ?, ?, 's', 'p', 18, 3600, ?, ?)`, id, addr, "lnbc-"+id, "hash-"+id, now, now); err != nil {
				t.Fatal(err)
			}
		}
		if err := migrations.InvoiceTagsUp(ctx, db.W); err != nil {
			t.Fatal(err)
		}
		tags := func() map[string][2]*string {
			t.Helper()
			var rows []struct {
				ID     string  `bun:"id"`
				Plugin *string `bun:"tag_plugin"`
				Tag    *string `bun:"tag"`
			}
			if err := db.W.NewRaw(`SELECT id, tag_plugin, tag FROM invoices ORDER BY id`).Scan(ctx, &rows); err != nil {
				t.Fatal(err)
			}
			out := map[string][2]*string{}
			for _, r := range rows {
				out[r.ID] = [2]*string{r.Plugin, r.Tag}
			}
			return out
		}
		got := tags()
		if a := got["addressed"]; a[0] == nil || *a[0] != "lnurl" || a[1] == nil || *a[1] != "address-1" {
			t.Fatalf("the address's invoice migrated to tag %v", a)
		}
		if p := got["plain"]; p[0] != nil || p[1] != nil {
			t.Fatalf("an invoice of no address migrated to tag %v", p)
		}
		if _, err := db.W.ExecContext(ctx, `SELECT ln_address_id FROM invoices`); err == nil {
			t.Fatal("ln_address_id outlived the migration")
		}
		if _, err := db.W.ExecContext(ctx, `UPDATE invoices SET tag_plugin = 'tipjar', tag = 'x' WHERE id = 'plain'`); err != nil {
			t.Fatal(err)
		}
		if err := migrations.InvoiceTagsDown(ctx, db.W); err != nil {
			t.Fatal(err)
		}
		var addrs []struct {
			Addr *string `bun:"ln_address_id"`
		}
		if err := db.W.NewRaw(`SELECT ln_address_id FROM invoices ORDER BY id`).Scan(ctx, &addrs); err != nil {
			t.Fatal(err)
		}
		if len(addrs) != 2 || addrs[0].Addr == nil || *addrs[0].Addr != "address-1" || addrs[1].Addr != nil {
			t.Fatalf("down again, the addresses are %+v", addrs)
		}
		if err := migrations.InvoiceTagsUp(ctx, db.W); err != nil {
			t.Fatal(err)
		}
		if a := tags()["addressed"]; a[0] == nil || *a[0] != "lnurl" || *a[1] != "address-1" {
			t.Fatalf("up again, the address's invoice has tag %v", a)
		}
	})
}
