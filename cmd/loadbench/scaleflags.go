package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
)

// scaleFlags declares the scale phase's flags; -scale N turns it on.
func scaleFlags() *scaleOptions {
	o := &scaleOptions{name: "hearth_scale", calls: 10}
	flag.IntVar(&o.n, "scale", 0, "instead: the scale phase (scale.go) on books of this many payments and invoices on PostgreSQL, seeded once and kept; its lists, ledger checks, backup, restore and payment rate")
	flag.IntVar(&o.nSQLite, "scale-sqlite", 0, "with -scale: payments and invoices on SQLite (0: a tenth of -scale)")
	flag.StringVar(&o.dir, "scale-dir", "", "with -scale: where the books are kept (SQLite's, and every backup while measured; default ${XDG_CACHE_HOME:-~/.cache}/hearth/loadbench/scale)")
	flag.BoolVar(&o.reseed, "scale-reseed", false, "with -scale: seed the books again even when they are kept")
	flag.IntVar(&o.payments, "scale-payments", 10000, "with -scale: payments measured flat out on the books (after 500 unmeasured), the ones the incremental ledger check then reads")
	flag.IntVar(&o.backupRun, "scale-backup-run", 2000, "with -scale: payments per phase before and during a backup")
	flag.IntVar(&o.calls, "scale-calls", 10, "with -scale: calls of each list measured")
	flag.IntVar(&o.backupNice, "scale-backup-nice", 0, "with -scale: run the backup measured beside payments at this niceness (nice -n)")
	flag.StringVar(&o.hearth, "scale-hearth", ".", "with -scale: the build measured, a git revision, a hearth binary, or . for the working tree")
	flag.StringVar(&o.only, "scale-only", "", "with -scale: backup measures the payments and the backup beside them alone (no lists, checks, restore); lists the lists alone")
	return o
}

// runScale checks o, fills in its defaults and runs the scale phase.
func runScale(ctx context.Context, databases, pgURL string, clients int, o *scaleOptions) error {
	o.clients, o.warmup = clients, 500
	if o.nSQLite <= 0 {
		o.nSQLite = max(o.n/10, 1)
	}
	if o.dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		o.dir = filepath.Join(cache, "hearth", "loadbench", "scale")
	}
	if o.only != "" && o.only != "backup" && o.only != "lists" {
		return errors.New("scale-only takes backup or lists")
	}
	if o.payments < clients || o.backupRun < clients || o.calls < 1 || o.n < 2*clients {
		return errors.New("need scale-payments and scale-backup-run ≥ clients, scale-calls ≥ 1, scale ≥ 2 clients")
	}
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return err
	}
	return scaleTest(ctx, databases, pgURL, *o)
}
