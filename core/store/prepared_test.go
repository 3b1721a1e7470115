package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// Hot queries, and the group commit's SAVEPOINT and RELEASE, which every
// payment on SQLite runs, stay prepared on the connection instead of being
// parsed at each use.
func TestHotQueriesArePreparedOncePerConnection(t *testing.T) {
	db := openScratch(t)
	ctx := context.Background()
	add := store.NewHot("INSERT INTO t (id) VALUES (?)")
	get := store.NewHot("SELECT id FROM t WHERE id = ?")
	s0, r0 := store.GroupPrepares()
	for i := 1; i <= 50; i++ {
		err := db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, err := db.Exec(ctx, tx, add, i)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		var id int
		if err := db.QueryRow(ctx, db.W, get, []any{&id}, i); err != nil || id != i {
			t.Fatalf("reading %d back = %d, %v", i, id, err)
		}
	}
	// Every write and these reads share the one writer connection.
	if n, m := store.Prepares(add), store.Prepares(get); n != 1 || m != 1 {
		t.Errorf("prepared the insert %d times and the select %d times over 50 runs, want once each", n, m)
	}
	if s, r := store.GroupPrepares(); s == 0 || r == 0 || s-s0 > 1 || r-r0 > 1 {
		t.Errorf("SAVEPOINT prepared %d times, RELEASE %d (%d and %d over 50 transactions); want each prepared, once at most for this connection", s, r, s-s0, r-r0)
	}
}

func TestHotQueryRunsAgainWhileItsRowsAreOpen(t *testing.T) {
	db := openScratch(t)
	ctx := context.Background()
	text := "SELECT id FROM t WHERE id >= ? ORDER BY id"
	store.NewHot(text)
	err := db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for id := 1; id <= 3; id++ {
			if err := insert(ctx, tx, id); err != nil {
				return err
			}
		}
		outer, err := tx.Tx.QueryContext(ctx, text, 1)
		if err != nil {
			return err
		}
		defer outer.Close()
		var got []int
		for outer.Next() {
			var id, inner int
			if err := outer.Scan(&id); err != nil {
				return err
			}
			// The same text on the same connection, its statement busy.
			if err := tx.Tx.QueryRowContext(ctx, text, 3).Scan(&inner); err != nil || inner != 3 {
				t.Errorf("inner query = %d, %v; want 3", inner, err)
			}
			got = append(got, id)
		}
		if len(got) != 3 || got[0] != 1 || got[2] != 3 {
			t.Errorf("outer rows = %v, want [1 2 3]", got)
		}
		return outer.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestHotQueryBindsTimesAsBunWritesThem(t *testing.T) {
	db := openScratch(t)
	ctx := context.Background()
	if _, err := db.W.ExecContext(ctx, "CREATE TABLE times (at TIMESTAMP)"); err != nil {
		t.Fatal(err)
	}
	// Nanoseconds and a zone: bun writes microseconds in UTC.
	at := time.Date(2026, 11, 22, 5, 4, 29, 123456789, time.FixedZone("CET", 3600))
	row := &struct {
		bun.BaseModel `bun:"table:times"`
		At            time.Time `bun:"at"`
	}{At: at}
	if _, err := db.W.NewInsert().Model(row).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	count := store.NewHot("SELECT count(*) FROM times WHERE at = ?")
	for _, arg := range []any{at, &at} {
		var n int
		if err := db.QueryRow(ctx, db.R, count, []any{&n}, arg); err != nil || n != 1 {
			t.Errorf("rows at %T %v = %d, %v; want 1", arg, at, n, err)
		}
	}
	// The text of the time bound last is kept: the same instant in
	// another zone binds the same text, the next microsecond its own.
	for _, arg := range []any{at.UTC(), at.Add(time.Microsecond), at} {
		want := 1
		if arg.(time.Time).Equal(at.Add(time.Microsecond)) {
			want = 0
		}
		var n int
		if err := db.QueryRow(ctx, db.R, count, []any{&n}, arg); err != nil || n != want {
			t.Errorf("rows at %v = %d, %v; want %d", arg, n, err, want)
		}
	}
}

// A Hot query that takes an event id (store.EventToken) stays prepared on
// SQLite like any other: the text its connections keep is the one it runs.
func TestHotQueryWithAnEventIDIsPreparedOnce(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	touch := store.NewHot("UPDATE invoices SET event_id = " + store.EventToken + " WHERE id = ?")
	for i := range 20 {
		err := db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, err := db.Exec(ctx, tx, touch, i)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := store.Prepares(touch); n != 1 {
		t.Fatalf("prepared %d times over 20 runs, want once", n)
	}
}
