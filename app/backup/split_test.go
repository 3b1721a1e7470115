package backup_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/app/backup"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// rows writes payments and invoices as the ledger does: a status, and
// an event id where the ledger gives one (hearth_event_id()).
type rows struct {
	t  *testing.T
	db bun.IDB
}

func (r rows) payment(id, status, ledger, hash string, event bool) {
	r.t.Helper()
	e := "NULL"
	if event {
		e = "hearth_event_id()"
	}
	if _, err := r.db.ExecContext(context.Background(), `INSERT INTO payments (id, wallet_id, amount_msat, status, ledger, payment_hash, created_at, event_id)
		VALUES (?, 'w0', 1000, ?, ?, ?, now(), `+e+`)`, id, status, ledger, hash); err != nil {
		r.t.Fatal(err)
	}
}

func (r rows) invoice(id, status, hash string, event bool) {
	r.t.Helper()
	e := "NULL"
	if event {
		e = "hearth_event_id()"
	}
	if _, err := r.db.ExecContext(context.Background(), `INSERT INTO invoices (id, wallet_id, status, ledger, bolt11, payment_hash,
		payment_secret, payee_pubkey, min_final_cltv_expiry_delta, expiry, expires_at, created_at, event_id)
		VALUES (?, 'w1', ?, 'Lightning', ?, ?, 's', 'k', 18, 3600, now() + interval '1 hour', now(), `+e+`)`,
		id, status, "lnbcrt"+id, hash); err != nil {
		r.t.Fatal(err)
	}
}

// settle settles a row of table with a new event id, as the ledger does.
func (r rows) settle(table, id string) {
	r.t.Helper()
	if _, err := r.db.ExecContext(context.Background(), "UPDATE "+table+" SET status = 'Settled', event_id = hearth_event_id() WHERE id = ?", id); err != nil {
		r.t.Fatal(err)
	}
}

// statuses is each payment's and invoice's status in the database o.
func statuses(t *testing.T, o store.Options) map[string]string {
	t.Helper()
	got := map[string]string{}
	_, err := store.Read(context.Background(), o, func(ctx context.Context, q bun.IDB) error {
		rs, err := q.QueryContext(ctx, "SELECT id, status FROM payments UNION ALL SELECT id, status FROM invoices")
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var id, status string
			if err := rs.Scan(&id, &status); err != nil {
				return err
			}
			got[id] = status
		}
		return rs.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A backup of PostgreSQL reads the settled history after its snapshot has
// ended, and still restores the snapshot: what settles, fails late into
// success or is made between the snapshot and the reading of the settled
// rows is restored as the snapshot held it (or not at all), and nothing
// twice. A settled row without an event id, which neither part of the
// split reads, makes the copy one snapshot again, whole.
func TestSplitBackupRestoresItsSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Postgres(t)
	var schema string
	if err := db.R.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.DatabaseURL = os.Getenv(storetest.PostgresEnv) + "&search_path=" + schema
	s := newSource(t, db, cfg)
	r := rows{t, db.W}
	r.payment("p-settled", "Settled", "Lightning", "h1", true)
	r.payment("p-pending", "Pending", "Lightning", "h2", false)
	r.payment("p-failed", "Failed", "Lightning", "h3", true)
	r.payment("p-internal", "Settled", "Internal", "h4", true)
	r.invoice("i-internal", "Settled", "h4", false) // settled by p-internal, with its event id
	r.invoice("i-settled", "Settled", "h5", true)
	r.invoice("i-pending", "Pending", "h6", false)

	busy := make(chan error, 1)
	between := func(ctx context.Context) error {
		// A statement of another session runs while the settled rows are
		// read: the copy gives way.
		go func() {
			_, err := db.W.ExecContext(ctx, "SELECT pg_sleep(2)")
			busy <- err
		}()
		if err := waitActive(ctx, db); err != nil {
			return err
		}
		r.settle("payments", "p-pending")
		r.settle("payments", "p-failed") // a late success
		r.settle("invoices", "i-pending")
		r.payment("p-later", "Settled", "Lightning", "h7", true)
		r.invoice("i-later", "Settled", "h8", true)
		return nil
	}
	to := filepath.Join(t.TempDir(), "hearth.tar.gz")
	res, err := backup.Write(ctx, to, backup.WithBetween(backup.Options{Config: cfg, Files: s.files, HearthVersion: "test"}, between))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-busy; err != nil {
		t.Fatal(err)
	}
	if res.Rested <= 0 {
		t.Fatal("the copy did not give way to a statement running beside it")
	}
	m := res.Manifest
	if m.Version != 2 || len(m.Database.Tables) != 2 || m.Database.Tables[0].Rows != 4 || m.Database.Tables[1].Rows != 3 {
		t.Fatalf("manifest version %d, tables %+v: want 2, payments 4 rows and invoices 3", m.Version, m.Database.Tables)
	}
	target := config.Default()
	target.DataDir = filepath.Join(t.TempDir(), "data")
	target.DatabaseURL = storetest.EmptyDatabaseURL(t, schema)
	if _, err := backup.Restore(ctx, to, backup.RestoreOptions{Config: target, Files: s.files, Out: new(strings.Builder)}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"p-settled": "Settled", "p-pending": "Pending", "p-failed": "Failed", "p-internal": "Settled",
		"i-internal": "Settled", "i-settled": "Settled", "i-pending": "Pending"}
	restored := store.Options{PostgresURL: target.DatabaseURL}
	if got := statuses(t, restored); !equal(got, want) {
		t.Fatalf("restored %v, want the snapshot's %v", got, want)
	}
	// Restored again over itself: the indexes and keys made after the
	// rows are dropped and made again.
	if _, err := backup.Restore(ctx, to, backup.RestoreOptions{Config: target, Force: true, Out: new(strings.Builder)}); err != nil {
		t.Fatalf("forced: %v", err)
	}
	if got := statuses(t, restored); !equal(got, want) {
		t.Fatalf("restored with force %v, want %v", got, want)
	}
	var indexes int
	if _, err := store.Read(ctx, restored, func(ctx context.Context, q bun.IDB) error {
		return q.QueryRowContext(ctx, "SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('payments', 'invoices')").Scan(&indexes)
	}); err != nil || indexes != 23 {
		t.Fatalf("restored tables have %d indexes (%v), want 23", indexes, err)
	}

	// A settled payment without an event id: the copy is one snapshot.
	r.payment("p-no-event", "Settled", "Lightning", "h9", false)
	res, err = backup.Write(ctx, filepath.Join(t.TempDir(), "whole.tar.gz"), backup.Options{Config: cfg, HearthVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Manifest; m.Version != 1 || len(m.Database.Tables) != 0 {
		t.Fatalf("manifest version %d, tables %+v: want one snapshot, version 1", m.Version, m.Database.Tables)
	}
	if _, err := backup.Restore(ctx, res.Path, backup.RestoreOptions{Config: target, Force: true, Out: new(strings.Builder)}); err != nil {
		t.Fatal(err)
	}
	if got := statuses(t, restored); got["p-no-event"] != "Settled" || got["p-later"] != "Settled" || len(got) != 10 {
		t.Fatalf("restored from one snapshot: %v", got)
	}
}

// waitActive waits until a session of db other than this one runs a
// statement.
func waitActive(ctx context.Context, db *store.DB) error {
	for {
		var n int
		if err := db.R.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND state = 'active' AND query LIKE 'SELECT pg_sleep%'`).Scan(&n); err != nil || n > 0 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond): // polling the condition
		}
	}
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
