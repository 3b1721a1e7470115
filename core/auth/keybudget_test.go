package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

// A key made with a budget shows it (nothing used, renewing at the next
// period) when made, read and listed; its principal, from the database
// and from the cache alike, says it is budgeted and how it renews. A key
// without one shows no budget field at all, and its principal is
// unbounded.
func TestKeyBudgetIsKeptShownAndCarried(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keys := auth.NewKeys(db)
		now := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)
		keys.SetClock(func() time.Time { return now })
		waitLive(t, keys)
		if _, err := wallet.NewService(db).Ensure(ctx, "dave"); err != nil {
			t.Fatal(err)
		}
		made, err := keys.Create(ctx, admin, auth.NewKey{UserID: "dave", Name: "shop", Permissions: []string{"write:transaction"},
			Budget: &budget.Spec{MaxMsat: 50_000, Renewal: budget.Weekly}})
		if err != nil {
			t.Fatal(err)
		}
		plain := newKey(t, keys, "dave", 0)
		want := budget.Status{MaxMsat: 50_000, Renewal: budget.Weekly, RenewsAt: ptr(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))}
		got, err := keys.Get(ctx, "dave", made.ID)
		if err != nil {
			t.Fatal(err)
		}
		list, err := keys.List(ctx, "dave", store.Page{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range append([]auth.APIKey{*made, *got}, list...) {
			if k.ID == plain.ID {
				if b, _ := json.Marshal(k); strings.Contains(string(b), "budget") || k.Budget != nil {
					t.Fatalf("a key without a budget shows one: %s", b)
				}
				continue
			}
			if k.Budget == nil || k.Budget.MaxMsat != want.MaxMsat || k.Budget.Renewal != want.Renewal ||
				k.Budget.UsedMsat != 0 || !k.Budget.RenewsAt.Equal(*want.RenewsAt) {
				t.Fatalf("budget = %+v, want %+v", k.Budget, want)
			}
		}
		if b, _ := json.Marshal(got); !strings.Contains(string(b), `"budget":{"max_msat":50000,"renewal":"weekly","used_msat":0,"renews_at":"2026-11-30T00:00:00Z"}`) {
			t.Fatalf("key JSON = %s", b)
		}
		for round := range 2 { // the lookup, then the cache
			p, _, err := keys.Authenticate(ctx, made.Key)
			if err != nil || !p.Budgeted || p.Budget != budget.Weekly || p.KeyID != made.ID {
				t.Fatalf("round %d: principal %+v, %v", round, p, err)
			}
			p, _, err = keys.Authenticate(ctx, plain.Key)
			if err != nil || p.Budgeted || p.KeyID != plain.ID {
				t.Fatalf("round %d: unbudgeted principal %+v, %v", round, p, err)
			}
		}
		if !auth.Cached(keys, made.Key) {
			t.Fatal("the budgeted key was not cached")
		}
	})
}

// What a key's budget used shows only while its period lasts: the same
// use read after the period's end is nothing, and renews_at has moved on.
// A budget that never renews keeps its use and shows no renews_at.
func TestKeyBudgetUseShowsInItsPeriodOnly(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keys := auth.NewKeys(db)
		now := time.Date(2026, 11, 27, 23, 59, 0, 0, time.UTC)
		keys.SetClock(func() time.Time { return now })
		daily, err := keys.Create(ctx, admin, auth.NewKey{UserID: "erin", Name: "d", Permissions: []string{"read:wallet"},
			Budget: &budget.Spec{MaxMsat: 9_000, Renewal: budget.Daily}})
		if err != nil {
			t.Fatal(err)
		}
		never, err := keys.Create(ctx, admin, auth.NewKey{UserID: "erin", Name: "n", Permissions: []string{"read:wallet"},
			Budget: &budget.Spec{MaxMsat: 9_000}}) // renewal omitted: never
		if err != nil {
			t.Fatal(err)
		}
		if never.Budget == nil || never.Budget.Renewal != budget.Never || never.Budget.RenewsAt != nil {
			t.Fatalf("a budget without renewal = %+v", never.Budget)
		}
		if _, err := db.W.ExecContext(ctx, `UPDATE api_keys SET budget_used_msat = 4000 WHERE budget_max_msat IS NOT NULL`); err != nil {
			t.Fatal(err)
		}
		used := func(id string) budget.Status {
			t.Helper()
			k, err := keys.Get(ctx, "", id)
			if err != nil {
				t.Fatal(err)
			}
			return *k.Budget
		}
		if d, n := used(daily.ID), used(never.ID); d.UsedMsat != 4000 || n.UsedMsat != 4000 {
			t.Fatalf("before midnight: daily %+v, never %+v", d, n)
		}
		now = now.Add(2 * time.Minute)
		d := used(daily.ID)
		if d.UsedMsat != 0 || !d.RenewsAt.Equal(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("after midnight: daily %+v", d)
		}
		if n := used(never.ID); n.UsedMsat != 4000 || n.RenewsAt != nil {
			t.Fatalf("after midnight: never %+v", n)
		}
	})
}

// A budget of less than 1 msat, of more than every bitcoin, or with an
// unknown renewal is refused with the key's validation error, and no key
// is made.
func TestKeyBudgetRefusesBadSpecs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keys := auth.NewKeys(db)
		for _, spec := range []budget.Spec{
			{MaxMsat: 0, Renewal: budget.Daily},
			{MaxMsat: -1},
			{MaxMsat: budget.MaxMsat + 1, Renewal: budget.Yearly},
			{MaxMsat: 10, Renewal: "hourly"},
			{MaxMsat: 10, Renewal: "Daily"},
		} {
			_, err := keys.Create(ctx, admin, auth.NewKey{UserID: "frank", Name: "k", Permissions: []string{"read:wallet"}, Budget: &spec})
			if !errors.Is(err, auth.ErrKeyInvalid) || !strings.Contains(err.Error(), "budget") {
				t.Errorf("budget %+v: %v", spec, err)
			}
		}
		if list, err := keys.List(ctx, "frank", store.Page{Limit: 10}); err != nil || len(list) != 0 {
			t.Fatalf("refused keys were made: %+v %v", list, err)
		}
	})
}

// A key made for a plugin keeps the plugin's name.
func TestKeyKeepsItsOwnerPlugin(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	keys := auth.NewKeys(db)
	k, err := keys.Create(context.Background(), admin, auth.NewKey{UserID: "gina", Name: "k", Permissions: []string{"read:wallet"}, OwnerPlugin: "nwc"})
	if err != nil {
		t.Fatal(err)
	}
	var owner *string
	if err := db.W.NewRaw(`SELECT owner_plugin FROM api_keys WHERE id = ?`, k.ID).Scan(context.Background(), &owner); err != nil {
		t.Fatal(err)
	}
	if owner == nil || *owner != "nwc" {
		t.Fatalf("owner_plugin = %v", owner)
	}
}

func ptr[T any](v T) *T { return &v }
