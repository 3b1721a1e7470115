package migrations_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/store/storetest"
)

// sql/pay_own.sql is the money path's functions as a migrated database
// has them: applying it again changes neither. A migration that changed
// hearth_pay_own or hearth_pay_own_batch without the file (a patched
// string, say) fails here.
func TestPayOwnFileIsInUse(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	ctx := context.Background()
	sources := func() map[string]string {
		t.Helper()
		var rows []struct {
			Name string `bun:"proname"`
			Src  string `bun:"prosrc"`
		}
		if err := db.R.NewRaw(`SELECT proname, prosrc FROM pg_proc WHERE proname IN ('hearth_pay_own', 'hearth_pay_own_batch')
			AND pronamespace = current_schema()::regnamespace`).Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range rows {
			out[r.Name] = r.Src
		}
		return out
	}
	before := sources()
	if len(before) != 2 {
		t.Fatalf("the migrated schema has %d of the two functions", len(before))
	}
	file, err := os.ReadFile("sql/pay_own.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.W.ExecContext(ctx, string(file)); err != nil {
		t.Fatal(err)
	}
	after := sources()
	for name, src := range before {
		if after[name] != src {
			t.Errorf("%s as migrated differs from sql/pay_own.sql's:\nmigrated: %s\nfile: %s", name, firstDiff(src, after[name]), firstDiff(after[name], src))
		}
	}
	// The comparison sees a change: the batch as a later migration that
	// forgot the file might leave it.
	patched := strings.Replace(string(file), "RETURN NEXT;", "RETURN NEXT; -- patched", 1)
	if _, err := db.W.ExecContext(ctx, patched); err != nil {
		t.Fatal(err)
	}
	if sources()["hearth_pay_own_batch"] == after["hearth_pay_own_batch"] {
		t.Fatal("a patched hearth_pay_own_batch compares equal to the file's")
	}
}

// firstDiff is a's text from a little before where it first differs from b.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return strings.TrimSpace(a[max(0, i-40):min(len(a), i+80)])
}
