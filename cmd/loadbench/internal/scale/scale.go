// Package scale is loadbench -scale: books of N payments and N invoices
// on PostgreSQL (and NSQLite on SQLite), seeded once through SQL and kept
// in the cache folder between runs (books.go, seedsql.go), then a `hearth
// serve` of a build on them (the working tree by default), measured over
// HTTP and through its commands: the lists' first, offset and cursor pages
// (lists.go), `hearth ledger check` incremental and --full, `hearth
// backup` and restore, the payment rate, and the rate while a backup runs
// (ops.go). The figures end as a Markdown table (print.go).
package scale

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/hearthbin"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/operator"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// figures are what the phase measured on one database.
type figures struct {
	database    string
	n           int
	seeded      time.Duration // 0 when the books were kept from an earlier run
	lists       []listFigure
	checkNew    int           // payments since the checkpoint at the incremental check
	check, full time.Duration // hearth ledger check, incremental and --full
	backup      time.Duration
	backupBytes int64
	restore     time.Duration
	rate        float64 // payments/s, closed loop
	quietRate   float64 // the median of the phases before a backup
	backupRate  float64 // … and of those during one
	backupBusy  time.Duration
}

// measure runs the scale phase on each of databases (comma separated).
func measure(ctx context.Context, databases, pgURL string, o Options) error {
	b, err := hearthbin.Make(ctx, "B", o.Hearth)
	if err != nil {
		return err
	}
	defer b.Remove()
	fmt.Printf("loadbench -scale: %s on books of %d payments (PostgreSQL) and %d (SQLite), kept in %s; %d clients, %s\n",
		b.Name, o.N, o.NSQLite, o.Dir, o.Clients, machine.Model())
	var all []figures
	for _, name := range strings.Split(databases, ",") {
		name = strings.TrimSpace(name)
		f, err := on(ctx, b, name, pgURL, o)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		all = append(all, f)
	}
	printScale(os.Stdout, all)
	return nil
}

// on measures one database's books.
func on(ctx context.Context, b hearthbin.Build, database, pgURL string, o Options) (figures, error) {
	n := o.N
	if database == "sqlite" {
		n = o.NSQLite
	}
	f := figures{database: database, n: n}
	books, err := openBooks(ctx, b, database, pgURL, o, n)
	if err != nil {
		return f, err
	}
	if books.seeded {
		f.seeded = time.Duration(books.state.SeedSeconds * float64(time.Second))
		fmt.Printf("  %s: seeded in %s\n", database, f.seeded.Round(time.Second))
	} else {
		fmt.Printf("  %s: the books of %s, seeded in %.0f s, kept\n", database, books.state.SeededAt.Format(time.RFC3339), books.state.SeedSeconds)
	}
	// Brings the checkpoint up to the books (the first run builds it).
	if _, err := books.hearth(ctx, "ledger", "check"); err != nil {
		return f, err
	}
	srv, err := hearthbin.Kept(ctx, b, books.dataDir, books.dbURL, append(books.env(), "HEARTH_LISTEN=127.0.0.1:0", "HEARTH_LOG_LEVEL=info"))
	if err != nil {
		return f, err
	}
	defer srv.Stop()
	pg := machine.Meter{}
	if database == "postgres" {
		pg = machine.PostgresMeter(ctx, pgURL)
	}
	l := operator.Attach(srv, o.Clients, books.state.PayerKeys, books.state.PayeeKeys,
		&http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}, pg)
	defer l.Close()
	if err := l.SignIn(ctx, books.state.Password); err != nil {
		return f, err
	}
	if o.Only == "" || o.Only == "lists" {
		if f.lists, err = measureLists(ctx, l, o.Clients, n, o.Calls); err != nil {
			return f, err
		}
	}
	if o.Only == "lists" {
		return f, nil
	}
	if err := l.MakePool(ctx, o.Warmup+o.Payments+(backupPhases+busyPhases)*o.BackupRun); err != nil {
		return f, err
	}
	r, err := l.Phase("flat out", o.Warmup/o.Clients, o.Payments/o.Clients, 0)
	if err != nil {
		return f, fmt.Errorf("paying: %w; its log: %s", err, srv.Log())
	}
	f.rate = r.Rate()
	fmt.Printf("  %s: %d payments flat out at %.0f/s, p99 %s\n", database, len(r.Latencies), f.rate, stats.Round(r.Percentile(99)))
	backup := books.backupPath("idle")
	defer os.Remove(backup)
	defer os.Remove(backup + ".sha256")
	if o.Only == "" {
		if err := books.checksAndBackup(ctx, &f, backup); err != nil {
			return f, err
		}
	}
	if err := books.backupRates(ctx, l, o.Clients, &f, o.BackupRun, o.BackupNice); err != nil {
		return f, err
	}
	if o.Only != "" {
		return f, nil
	}
	l.Close()
	srv.Stop()
	return f, books.restoreInPlace(ctx, &f, backup, pgURL)
}

// checksAndBackup times the ledger checks, then a backup into path while
// the server is idle.
func (s *books) checksAndBackup(ctx context.Context, f *figures, path string) error {
	var err error
	if f.checkNew, err = s.sinceCheckpoint(ctx); err != nil {
		return err
	}
	if f.check, err = s.hearth(ctx, "ledger", "check"); err != nil {
		return err
	}
	if f.full, err = s.hearth(ctx, "ledger", "check", "--full"); err != nil {
		return err
	}
	fmt.Printf("  %s: ledger check %s (%d payments since its checkpoint), --full %s\n", s.database, f.check.Round(time.Millisecond), f.checkNew, f.full.Round(time.Millisecond))
	return s.backup(ctx, f, path)
}

// hearth runs the working tree's hearth with args on the books and returns
// how long it took; a command that fails, or a ledger check that does not
// find every wallet balanced, is an error.
func (s *books) hearth(ctx context.Context, args ...string) (time.Duration, error) {
	return s.hearthEnv(ctx, s.env(), args...)
}

// backupPath is where the books' backups are written.
func (s *books) backupPath(which string) string {
	return filepath.Join(filepath.Dir(s.dataDir), filepath.Base(s.dataDir)+"-"+which+".tar.gz")
}
