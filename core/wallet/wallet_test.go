package wallet_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

func TestEnsureCreatesOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		svc := wallet.NewService(db)
		ctx := context.Background()
		var wg sync.WaitGroup
		ids := make([]string, 20)
		errs := make([]error, 20)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w, err := svc.Ensure(ctx, "alice")
				if err == nil {
					ids[i] = w.ID
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i := range ids {
			if errs[i] != nil {
				t.Fatalf("Ensure: %v", errs[i])
			}
			if ids[i] != ids[0] {
				t.Fatalf("Ensure returned two wallets: %s and %s", ids[0], ids[i])
			}
		}
		ws, err := svc.List(ctx, store.Page{})
		if err != nil || len(ws) != 1 {
			t.Fatalf("List = %d wallets, %v; want 1", len(ws), err)
		}
	})
}

func TestCreateGetDelete(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		svc := wallet.NewService(db)
		ctx := context.Background()
		label := "shop"
		w, err := svc.Create(ctx, "bob", &label)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Create(ctx, "bob", nil); !errors.Is(err, wallet.ErrExists) {
			t.Fatalf("second Create: %v, want ErrExists", err)
		}
		got, err := svc.Get(ctx, w.ID)
		if err != nil || got.UserID != "bob" || got.Label == nil || *got.Label != "shop" {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		if _, err := db.W.ExecContext(ctx, "UPDATE wallets SET available_msat = 5, received_msat = 5 WHERE id = ?", w.ID); err != nil {
			t.Fatal(err)
		}
		if err := svc.Delete(ctx, w.ID); !errors.Is(err, wallet.ErrNotEmpty) {
			t.Fatalf("Delete of a funded wallet: %v, want ErrNotEmpty", err)
		}
		if _, err := db.W.ExecContext(ctx, "UPDATE wallets SET available_msat = 0 WHERE id = ?", w.ID); err != nil {
			t.Fatal(err)
		}
		if err := svc.Delete(ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		if err := svc.Delete(ctx, w.ID); !errors.Is(err, wallet.ErrNotFound) {
			t.Fatalf("second Delete: %v, want ErrNotFound", err)
		}
		if _, err := svc.Create(ctx, "  ", nil); !errors.Is(err, wallet.ErrInvalid) {
			t.Fatalf("blank user: %v", err)
		}
	})
}
