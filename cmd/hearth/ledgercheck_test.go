package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// `hearth ledger check` reads what settled after its checkpoint, `ledger
// check --full` every row: a payment edited by hand once checkpointed is
// found by the full check alone, with the same lines and exit as before,
// and --node goes with either.
func TestLedgerCheckFull(t *testing.T) {
	t.Parallel()
	for _, database := range []string{"sqlite", "postgres"} {
		t.Run(database, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			environ := []string{"HEARTH_DATA_DIR=" + dir}
			o := store.Options{SQLitePath: filepath.Join(dir, "hearth.db")}
			if database == "postgres" {
				o = store.Options{PostgresURL: storetest.EmptySchemaURL(t)}
				environ = append(environ, "HEARTH_DATABASE_URL="+o.PostgresURL)
			}
			if err := run(ctx, []string{"migrate"}, newSyncWriter(), environ); err != nil {
				t.Fatal(err)
			}
			db, err := store.Open(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			node, err := embedded.New(ctx, db, "regtest")
			if err != nil {
				t.Fatal(err)
			}
			led := ledger.New(db, node, nil, ledger.Config{}, nil)
			alice, err := wallet.NewService(db).Ensure(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			bob, err := wallet.NewService(db).Ensure(ctx, "bob")
			if err != nil {
				t.Fatal(err)
			}
			funds, err := led.CreateInvoice(ctx, alice.ID, ledger.NewInvoice{AmountMsat: 50_000})
			if err != nil {
				t.Fatal(err)
			}
			if err := run(ctx, []string{"node", "pay", funds.LnInvoice.Bolt11}, newSyncWriter(), environ); err != nil {
				t.Fatal(err)
			}
			inv, err := led.CreateInvoice(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 2_000})
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := led.Pay(ctx, alice.ID, ledger.PayRequest{Input: inv.LnInvoice.Bolt11})
			if err != nil {
				t.Fatal(err)
			}
			check := func(args ...string) (string, error) {
				out := newSyncWriter()
				err := run(ctx, append([]string{"ledger", "check"}, args...), out, environ)
				return out.String(), err
			}
			const balances = "ledger check: every wallet balances\n"
			if out, err := check(); err != nil || out != balances {
				t.Fatalf("ledger check: %v; %q", err, out)
			}
			if _, err := db.W.ExecContext(ctx, "UPDATE payments SET amount_msat = amount_msat + 1 WHERE id = ?", p.ID); err != nil {
				t.Fatal(err)
			}
			if out, err := check(); err != nil || out != balances {
				t.Fatalf("incremental ledger check of an edited checkpointed row: %v; %q", err, out)
			}
			for _, args := range [][]string{{"--full"}, {"--full", "--node"}, {"--node", "--full"}} {
				out, err := check(args...)
				want := "BREACH wallet " + alice.ID + ": sent or fees differ from settled payments (available 48000, reserved 0, received 50000, sent 2000, fees 0)\n"
				if err == nil || err.Error() != "ledger check: 1 wallet(s) in breach" || out != want {
					t.Fatalf("ledger check %s: %v; %q", strings.Join(args, " "), err, out)
				}
			}
			if _, err := db.W.ExecContext(ctx, "UPDATE payments SET amount_msat = amount_msat - 1 WHERE id = ?", p.ID); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"--full", "--node"}, {"--node"}} {
				out, err := check(args...)
				if err != nil || !strings.HasPrefix(out, balances+"node check: the wallets are owed 50000 msat") {
					t.Fatalf("ledger check %s: %v; %q", strings.Join(args, " "), err, out)
				}
			}
		})
	}
}
