package scale

import (
	"context"
	"errors"
	"os"
	"path/filepath"
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
