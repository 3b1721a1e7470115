package scale

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/dbtest"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/hearthbin"
)

// TestScale runs the scale phase on tiny books of each database, twice:
// the first run seeds them (and the ledger checks find them balanced, or
// the phase fails), the second keeps them; each measures every list, the
// payments, both checks, a backup and its restore, and the rate beside a
// second backup. It builds cmd/hearth, so it is not run with -short.
func TestScale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hearth")
	}
	t.Parallel()
	ctx := context.Background()
	b, err := hearthbin.Make(ctx, "B", ".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Remove)
	dbtest.Each(t, func(t *testing.T, database, pgURL string) {
		suffix := make([]byte, 4)
		rand.Read(suffix)
		const n = 2_000
		o := Options{N: n, NSQLite: n, Name: "hearth_scale_test_" + hex.EncodeToString(suffix), Dir: t.TempDir(),
			Clients: 4, Payments: 200, Warmup: 20, Calls: 2, BackupRun: 40}
		if database == "postgres" {
			t.Cleanup(func() { dropDatabase(t, pgURL, fmt.Sprintf("%s_%d", o.Name, n)) })
		}
		for run, seeds := range []bool{true, false} {
			f, err := on(ctx, b, database, pgURL, o)
			if err != nil {
				t.Fatalf("run %d: %v", run+1, err)
			}
			if (f.seeded > 0) != seeds {
				t.Errorf("run %d seeded the books: %v, want %v", run+1, f.seeded > 0, seeds)
			}
			if len(f.lists) != 10 {
				t.Errorf("run %d measured %d lists, want 10", run+1, len(f.lists))
			}
			for _, l := range f.lists {
				if l.p50 <= 0 || l.p99 < l.p50 {
					t.Errorf("run %d: %s: p50 %s, p99 %s", run+1, l.name, l.p50, l.p99)
				}
			}
			if f.rate <= 0 || f.quietRate <= 0 || f.backupRate <= 0 || f.checkNew < o.Payments || f.check <= 0 || f.full <= 0 ||
				f.backup <= 0 || f.backupBytes <= 0 || f.restore <= 0 {
				t.Errorf("run %d: figures %+v", run+1, f)
			}
			var out strings.Builder
			printScale(&out, []figures{f})
			if !strings.Contains(out.String(), fmt.Sprintf("| %s, 2,000 |", database)) {
				t.Errorf("run %d: the table lacks its row:\n%s", run+1, out.String())
			}
		}
	})
}

// dropDatabase drops the PostgreSQL database name through adminURL.
func dropDatabase(t *testing.T, adminURL, name string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		t.Error(err)
	}
}

// TestCheck refuses what the phase cannot run with, in the flags' words.
func TestCheck(t *testing.T) {
	ok := Options{N: 1000, Clients: 50, Payments: 10000, BackupRun: 2000, Calls: 10}
	if err := ok.check(); err != nil {
		t.Errorf("the defaults at 1000 slots: %v", err)
	}
	for _, only := range []string{"backup", "lists"} {
		o := ok
		o.Only = only
		if err := o.check(); err != nil {
			t.Errorf("only %s: %v", only, err)
		}
	}
	for name, tc := range map[string]struct {
		change func(*Options)
		want   string
	}{
		"only what":       {func(o *Options) { o.Only = "everything" }, "scale-only takes backup or lists"},
		"too few paid":    {func(o *Options) { o.Payments = 49 }, "need scale-payments and scale-backup-run ≥ clients"},
		"too few around":  {func(o *Options) { o.BackupRun = 10 }, "need scale-payments and scale-backup-run ≥ clients"},
		"no calls":        {func(o *Options) { o.Calls = 0 }, "scale-calls ≥ 1"},
		"books too small": {func(o *Options) { o.N = 99 }, "scale ≥ 2 clients"},
	} {
		o := ok
		tc.change(&o)
		if err := o.check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
