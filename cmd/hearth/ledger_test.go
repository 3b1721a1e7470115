package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

func TestNodePayAndLedgerCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	environ := []string{"HEARTH_DATA_DIR=" + dir}
	if err := run(ctx, []string{"ledger", "check"}, newSyncWriter(), environ); err != nil {
		t.Fatalf("ledger check of an empty database: %v", err)
	}
	// An invoice made by the instance (its node key lives in the database).
	db, err := store.Open(ctx, store.Options{SQLitePath: filepath.Join(dir, "hearth.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	node, err := embedded.New(ctx, db, "regtest")
	if err != nil {
		t.Fatal(err)
	}
	w, err := wallet.NewService(db).Ensure(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	inv, err := ledger.New(db, node, nil, ledger.Config{}, nil).CreateInvoice(ctx, w.ID, ledger.NewInvoice{AmountMsat: 12_345})
	if err != nil {
		t.Fatal(err)
	}

	out := newSyncWriter()
	if err := run(ctx, []string{"node", "pay", inv.LnInvoice.Bolt11}, out, environ); err != nil || !strings.Contains(out.String(), "paid") {
		t.Fatalf("node pay: %v; output %s", err, out)
	}
	if err := run(ctx, []string{"node", "pay", inv.LnInvoice.Bolt11}, newSyncWriter(), environ); err == nil {
		t.Fatal("paying the same invoice twice succeeded")
	}
	got, err := wallet.NewService(db).Get(ctx, w.ID)
	if err != nil || got.Balance.AvailableMsat != 12_345 {
		t.Fatalf("balance after node pay: %+v %v", got, err)
	}
	out = newSyncWriter()
	if err := run(ctx, []string{"ledger", "check"}, out, environ); err != nil || !strings.Contains(out.String(), "every wallet balances") {
		t.Fatalf("ledger check: %v; %s", err, out)
	}
	if _, err := db.W.ExecContext(ctx, "UPDATE wallets SET available_msat = available_msat + 1"); err != nil {
		t.Fatal(err)
	}
	out = newSyncWriter()
	if err := run(ctx, []string{"ledger", "check"}, out, environ); err == nil || !strings.Contains(out.String(), "BREACH wallet "+w.ID) {
		t.Fatalf("ledger check after tampering: %v; %s", err, out)
	}
}
