package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// scaleOptions shape the scale phase (-scale): books of n payments and n
// invoices, seeded once and kept (scaleseed.go), then a `hearth serve` of
// the working tree on them, measured over HTTP and through its commands.
type scaleOptions struct {
	n, nSQLite int    // slots seeded on PostgreSQL and on SQLite
	name       string // the books' name: PostgreSQL's database, SQLite's folder (with n)
	dir        string // the cache folder of the books and their backups
	reseed     bool
	clients    int
	payments   int // measured in the closed-loop phase, after warmup
	warmup     int
	calls      int    // per list
	backupRun  int    // payments per phase around a backup
	backupNice int    // the niceness of the backup measured beside payments (nice -n)
	only       string // "backup": the payments and the backup beside them alone; "lists": the lists alone
	hearth     string // the build measured: a git revision, a hearth binary, or "." (the working tree)
}

// scaleFigures are what the phase measured on one database.
type scaleFigures struct {
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

// scaleTest runs the scale phase on each database.
func scaleTest(ctx context.Context, databases, pgURL string, o scaleOptions) error {
	b, err := buildHearth(ctx, "B", o.hearth)
	if err != nil {
		return err
	}
	defer b.remove()
	fmt.Printf("loadbench -scale: %s on books of %d payments (PostgreSQL) and %d (SQLite), kept in %s; %d clients, %s\n",
		b.name, o.n, o.nSQLite, o.dir, o.clients, machine.Model())
	var all []scaleFigures
	for _, name := range strings.Split(databases, ",") {
		name = strings.TrimSpace(name)
		f, err := scaleOn(ctx, b, name, pgURL, o)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		all = append(all, f)
	}
	printScale(os.Stdout, all)
	return nil
}

// scaleOn measures one database's books.
func scaleOn(ctx context.Context, b build, database, pgURL string, o scaleOptions) (scaleFigures, error) {
	n := o.n
	if database == "sqlite" {
		n = o.nSQLite
	}
	f := scaleFigures{database: database, n: n}
	books, err := openScaleBooks(ctx, b, database, pgURL, o.dir, o, n)
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
	inst := &instance{build: b, dataDir: books.dataDir, dbURL: books.dbURL, exited: make(chan struct{}), logTail: &tail{}, keep: true}
	if err := inst.launch(ctx, append(books.env(), "HEARTH_LISTEN=127.0.0.1:0", "HEARTH_LOG_LEVEL=info")); err != nil {
		return f, err
	}
	defer inst.stop()
	pg := machine.Meter{}
	if database == "postgres" {
		pg = machine.PostgresMeter(ctx, pgURL)
	}
	l := &operatorLoad{inst: inst, o: abOptions{clients: o.clients}, pg: pg, paid: make([]int64, o.clients),
		payerKeys: books.state.PayerKeys, payeeKeys: books.state.PayeeKeys,
		http: &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	defer l.close()
	if err := l.signIn(ctx, books.state.Password); err != nil {
		return f, err
	}
	if o.only == "" || o.only == "lists" {
		if f.lists, err = measureLists(ctx, l, n, o.calls); err != nil {
			return f, err
		}
	}
	if o.only == "lists" {
		return f, nil
	}
	if err := l.makePool(ctx, o.warmup+o.payments+(scaleBackupPhases+scaleBusyPhases)*o.backupRun); err != nil {
		return f, err
	}
	r, err := l.phase("flat out", o.warmup/o.clients, o.payments/o.clients, 0)
	if err != nil {
		return f, fmt.Errorf("paying: %w; its log: %s", err, inst.logTail)
	}
	f.rate = r.Rate()
	fmt.Printf("  %s: %d payments flat out at %.0f/s, p99 %s\n", database, len(r.Latencies), f.rate, stats.Round(r.Percentile(99)))
	backup := books.backupPath("idle")
	defer os.Remove(backup)
	defer os.Remove(backup + ".sha256")
	if o.only == "" {
		if err := books.checksAndBackup(ctx, &f, backup); err != nil {
			return f, err
		}
	}
	if err := l.backupRates(ctx, books, &f, o.backupRun, o.backupNice); err != nil {
		return f, err
	}
	if o.only != "" {
		return f, nil
	}
	l.close()
	inst.stop()
	return f, books.restoreInPlace(ctx, &f, backup, pgURL)
}

// checksAndBackup times the ledger checks, then a backup into path while
// the server is idle.
func (s *scaleBooks) checksAndBackup(ctx context.Context, f *scaleFigures, path string) error {
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
func (s *scaleBooks) hearth(ctx context.Context, args ...string) (time.Duration, error) {
	return s.hearthEnv(ctx, s.env(), args...)
}

// backupPath is where the books' backups are written.
func (s *scaleBooks) backupPath(which string) string {
	return filepath.Join(filepath.Dir(s.dataDir), filepath.Base(s.dataDir)+"-"+which+".tar.gz")
}
