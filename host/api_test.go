package host_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// builtin registers a built-in plugin declaring scopes and returns its
// host API: built-ins call the same API, through the same check.
func builtin(t testing.TB, e *plugintest.Env, name, walletID string, scopes ...string) *host.Caller {
	t.Helper()
	m := &host.Manifest{Name: name, Version: "1.0.0", ABI: host.ABIVersion, Scopes: scopes}
	p, err := e.Registry.RegisterBuiltin(m, nil, walletID)
	if err != nil {
		t.Fatal(err)
	}
	return e.Registry.API().For(p)
}

func TestBuiltinPluginsUseTheSameHostAPI(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{NoRun: true})
		ctx := context.Background()
		alice := e.Wallet("alice", 10_000)
		bob := e.Wallet("bob", 0)
		reader := builtin(t, e, "reader", alice.ID, "read:wallet", "read:transaction")
		w, err := reader.Wallet(ctx)
		if err != nil || w.Balance.AvailableMsat != 10_000 {
			t.Fatalf("wallet: %+v %v", w, err)
		}
		if _, err := reader.CreateInvoice(ctx, ledger.NewInvoice{AmountMsat: 1}); !isPermission(err) {
			t.Fatalf("create_invoice without write:transaction: %v", err)
		}
		payer := builtin(t, e, "payer", alice.ID, "write:transaction")
		inv, err := e.Ledger.CreateInvoice(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 3000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := payer.Pay(ctx, ledger.PayRequest{Input: inv.Bolt11, IdempotencyKey: "k"}); err != nil {
			t.Fatal(err)
		}
		if _, err := payer.Pay(ctx, ledger.PayRequest{Input: inv.Bolt11, IdempotencyKey: "k"}); err != nil {
			t.Fatalf("idempotent retry: %v", err)
		}
		if b := e.Balance(bob.ID); b.AvailableMsat != 3000 {
			t.Fatalf("bob has %d", b.AvailableMsat)
		}
		if _, err := payer.Wallet(ctx); !isPermission(err) {
			t.Fatalf("wallet without read:wallet: %v", err)
		}
		unbound := builtin(t, e, "unbound", "", "read:wallet")
		if _, err := unbound.Wallet(ctx); !isPermission(err) {
			t.Fatalf("wallet call without a bound wallet: %v", err)
		}
	})
}

func TestKeyValueStoreIsPerPlugin(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{NoRun: true})
		ctx := context.Background()
		a := builtin(t, e, "plugin-a", "")
		b := builtin(t, e, "plugin-b", "")
		for i := range 3 {
			if err := a.KVSet(ctx, fmt.Sprintf("item/%d", i), []byte{byte(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.KVSet(ctx, "item/1", []byte("new")); err != nil {
			t.Fatal(err)
		}
		if err := a.KVSet(ctx, "other", nil); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := a.KVGet(ctx, "item/1"); err != nil || !ok || string(v) != "new" {
			t.Fatalf("get: %q %v %v", v, ok, err)
		}
		if _, ok, err := b.KVGet(ctx, "item/1"); err != nil || ok {
			t.Fatalf("plugin b reads plugin a's key: %v %v", ok, err)
		}
		keys, err := a.KVList(ctx, "item/")
		if err != nil || fmt.Sprint(keys) != "[item/0 item/1 item/2]" {
			t.Fatalf("list: %v %v", keys, err)
		}
		if err := a.KVDelete(ctx, "item/0"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := a.KVGet(ctx, "item/0"); ok {
			t.Fatal("deleted key still there")
		}
		if err := a.KVSet(ctx, "", []byte("x")); err == nil {
			t.Fatal("empty key accepted")
		}
		if err := a.KVSet(ctx, "big", make([]byte, host.MaxValueBytes+1)); err == nil {
			t.Fatal("oversized value accepted")
		}
	})
}

func isPermission(err error) bool {
	var ce *host.CallError
	return errors.As(err, &ce) && ce.Code == host.ErrPermission
}

// FuzzHostCall feeds every host function garbage requests, as a plugin
// could: each answer is a result or a refusal, never a panic.
func FuzzHostCall(f *testing.F) {
	e := plugintest.New(f, storetest.SQLite(f), plugintest.Options{NoRun: true})
	m := &host.Manifest{Name: "fuzz", Version: "1.0.0", ABI: host.ABIVersion, Scopes: []string{"read:wallet"}}
	p, err := e.Registry.RegisterBuiltin(m, nil, "")
	if err != nil {
		f.Fatal(err)
	}
	ops := host.Ops()
	for i := range ops {
		f.Add(uint8(i), []byte(`{"key":"k","value":"dg==","prefix":"","url":"https://x/","level":"info","msg":"m"}`))
		f.Add(uint8(i), []byte(`{"amount_msat":-1,"input":"lnbc1","address":"a@b"}`))
		f.Add(uint8(i), []byte{0xff, '{'})
	}
	f.Fuzz(func(t *testing.T, op uint8, req []byte) {
		name := ops[int(op)%len(ops)]
		out, cerr := e.Registry.API().Dispatch(context.Background(), p, name, req)
		if cerr != nil && out != nil {
			t.Fatalf("%s: both an answer and a refusal", name)
		}
		if cerr != nil && cerr.Code == "internal" {
			t.Fatalf("%s: internal error on %q: %v", name, req, cerr)
		}
	})
}
