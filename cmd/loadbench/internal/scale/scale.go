// Package scale is loadbench -scale: books of N payments and N invoices
// on PostgreSQL (and NSQLite on SQLite), seeded once through SQL and kept
// in the cache folder between runs (books.go, seedsql.go), then a `hearth
// serve` of a build on them (the working tree by default), measured over
// HTTP and through its commands: the lists' first, offset and cursor pages
// (lists.go), `hearth ledger check` incremental and --full, `hearth
// backup` and restore, the payment rate, and the rate while a backup runs
// (ops.go). The figures end as a Markdown table (printScale).
package scale

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// Options shape the scale phase.
type Options struct {
	N, NSQLite int    // slots seeded on PostgreSQL and on SQLite (0: a tenth of N, at least 1)
	Name       string // the books' name: PostgreSQL's database, SQLite's folder (with n; "": hearth_scale)
	Dir        string // the cache folder of the books and their backups ("": ${XDG_CACHE_HOME:-~/.cache}/hearth/loadbench/scale)
	Reseed     bool   // seed the books again even when they are kept
	Clients    int
	Payments   int // measured in the closed-loop phase, after Warmup
	Warmup     int
	Calls      int    // per list
	BackupRun  int    // payments per phase around a backup
	BackupNice int    // the niceness of the backup measured beside payments (nice -n)
	Only       string // "backup": the payments and the backup beside them alone; "lists": the lists alone
	Hearth     string // the build measured: a git revision, a hearth binary, or "." (the working tree)
}

// Run checks o, fills in its defaults and runs the scale phase on each of
// databases (comma separated), with clients clients: it prints its
// progress and then its figures, as a Markdown table, on stdout.
func Run(ctx context.Context, databases, pgURL string, clients int, o Options) error {
	o.Clients, o.Warmup = clients, 500
	if o.NSQLite <= 0 {
		o.NSQLite = max(o.N/10, 1)
	}
	if o.Name == "" {
		o.Name = "hearth_scale"
	}
	if o.Dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		o.Dir = filepath.Join(cache, "hearth", "loadbench", "scale")
	}
	if err := o.check(); err != nil {
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return err
	}
	return measure(ctx, databases, pgURL, o)
}

// check refuses options the phase cannot run with, in the words of the
// flags that set them.
func (o Options) check() error {
	if o.Only != "" && o.Only != "backup" && o.Only != "lists" {
		return errors.New("scale-only takes backup or lists")
	}
	if o.Payments < o.Clients || o.BackupRun < o.Clients || o.Calls < 1 || o.N < 2*o.Clients {
		return errors.New("need scale-payments and scale-backup-run ≥ clients, scale-calls ≥ 1, scale ≥ 2 clients")
	}
	return nil
}

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

// printScale prints the scale phase's figures as a Markdown table, one row
// per database, lists as p50 / p99 of their calls; with the lists alone
// (-scale-only lists), their columns alone.
func printScale(w io.Writer, all []figures) {
	if len(all) == 0 {
		return
	}
	listsOnly := all[0].rate == 0 && len(all[0].lists) > 0
	head := []string{"database, payments"}
	for _, l := range all[0].lists {
		head = append(head, l.name)
	}
	if !listsOnly {
		head = append(head, "`hearth ledger check` (payments since its checkpoint)", "`--full`", "`hearth backup`, size", "restore",
			"payments/s, closed loop", "payments/s during a backup / before (the backup under load)", "seeding")
	}
	fmt.Fprintf(w, "\n| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, f := range all {
		row := []string{fmt.Sprintf("%s, %s", f.database, stats.Thousands(f.n))}
		for _, l := range f.lists {
			row = append(row, fmt.Sprintf("%s / %s", stats.Millis(l.p50), stats.Millis(l.p99)))
		}
		if listsOnly {
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
			continue
		}
		seeded := "kept"
		if f.seeded > 0 {
			seeded = f.seeded.Round(time.Second).String()
		}
		row = append(row, fmt.Sprintf("%s (%s)", stats.Secs(f.check), stats.Thousands(f.checkNew)), stats.Secs(f.full),
			fmt.Sprintf("%s, %.0f MB", stats.Secs(f.backup), float64(f.backupBytes)/1e6), stats.Secs(f.restore),
			stats.Thousands(int(f.rate+0.5)),
			fmt.Sprintf("%s / %s = %.2f (%s)", stats.Thousands(int(f.backupRate+0.5)), stats.Thousands(int(f.quietRate+0.5)), f.backupRate/f.quietRate, stats.Secs(f.backupBusy)),
			seeded)
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w)
}
