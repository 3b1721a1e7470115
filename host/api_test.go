package host_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
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
		keys, err := a.KVList(ctx, "item/", "", 0)
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

// TestKeyValueStorePagesAndKeepsItsQuota: on both databases, a plugin
// pages through its keys by prefix (a page, then the next after its last
// key, to an empty one), and keeps at most the operator's plugins.kv_keys:
// a new key past it is refused with limit, an existing one is still
// replaced, and a key deleted makes room. Twenty writers racing for the
// last places leave the store within the quota, give or take those that
// raced (the count is read in the statement that writes).
func TestKeyValueStorePagesAndKeepsItsQuota(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{NoRun: true, KVKeys: 25})
		ctx := context.Background()
		a := builtin(t, e, "pager", "")
		for i := range 20 {
			if err := a.KVSet(ctx, fmt.Sprintf("n/%02d", i), []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.KVSet(ctx, "other", []byte("x")); err != nil {
			t.Fatal(err)
		}
		var all []string
		after := ""
		for pages := 0; ; pages++ {
			keys, err := a.KVList(ctx, "n/", after, 7)
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) == 0 {
				if pages != 3 {
					t.Fatalf("%d pages of 7 for 20 keys", pages)
				}
				break
			}
			all = append(all, keys...)
			after = keys[len(keys)-1]
		}
		if len(all) != 20 || all[0] != "n/00" || all[19] != "n/19" {
			t.Fatalf("paged %d keys: %v", len(all), all)
		}
		var wg sync.WaitGroup
		var refused atomic.Int32
		for i := range 20 {
			wg.Go(func() {
				err := a.KVSet(ctx, fmt.Sprintf("race/%02d", i), []byte("x"))
				var ce *host.CallError
				switch {
				case errors.As(err, &ce) && ce.Code == "limit":
					refused.Add(1)
				case err != nil:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		n, err := db.R.NewSelect().Table("plugin_kv").Where("plugin = ?", "pager").Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n < 25 || n > 25+20-int(refused.Load()) || refused.Load() == 0 {
			t.Fatalf("%d keys kept of a quota of 25, %d writes refused", n, refused.Load())
		}
		if db.Dialect == store.SQLite && n != 25 {
			t.Fatalf("SQLite's one writer: %d keys, want exactly 25", n)
		}
		var ce *host.CallError
		if err := a.KVSet(ctx, "one-more", []byte("x")); !errors.As(err, &ce) || ce.Code != "limit" {
			t.Fatalf("a key past the quota: %v", err)
		}
		if err := a.KVSet(ctx, "n/00", []byte("replaced")); err != nil {
			t.Fatalf("replacing a key at the quota: %v", err)
		}
		if err := a.KVDelete(ctx, "other"); err != nil {
			t.Fatal(err)
		}
		if n == 25 {
			if err := a.KVSet(ctx, "one-more", []byte("x")); err != nil {
				t.Fatalf("a key after one was deleted: %v", err)
			}
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
