// Command hearth is the Hearth wallet server: `hearth serve`, `hearth
// migrate` and `hearth version`. It is the only place where every part is
// wired together.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/server"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/plugins/node/cln"
)

// Set at build time with -ldflags "-X main.version=… -X main.buildTime=…".
var (
	version   = "dev"
	buildTime = "unknown"
)

const usage = `Usage: hearth [--config hearth.toml] <command>

Commands:
  serve               run the server (migrates the database first)
  migrate             apply database migrations and exit
  ledger check        verify every wallet's balances; exits 1 on a breach (reads what
                      settled since its last check; --full: every invoice and payment)
  ledger check --node also compare what the wallets are owed with what the node holds
  node pay <bolt11>   embedded node: pay an invoice of this instance as an outside payer
  backup --to FILE    write a backup (database copy, node files, manifest) while the server runs
  restore --from FILE restore a backup into an empty data directory and database (--force: replace)
  plugin …            manage plugins of the running server (hearth plugin --help)
  version             print the version
  cln-guard           Core Lightning's invoice guard: lightningd runs it as a plugin

Every configuration key can also be set as a HEARTH_* environment variable,
e.g. HEARTH_LISTEN=:3000 or HEARTH_DATABASE_URL=postgres://….
`

func main() {
	if guardCommand(os.Args[1:], os.Environ()) {
		cln.RunGuard() // ends the process, when lightningd says so
	}
	tuneGC(os.Environ())
	ctx, stop := onSignals(context.Background())
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Environ()); err != nil {
		fmt.Fprintln(os.Stderr, "hearth:", err)
		os.Exit(1)
	}
}

// guardCommand reports whether this process is lightningd's invoice guard
// plugin: `hearth cln-guard`, or hearth started by lightningd as a plugin
// (plugin start, or plugin=/path/to/hearth in its configuration), which
// passes no arguments but --developer when it runs in developer mode.
func guardCommand(args, environ []string) bool {
	if slices.Equal(args, []string{"cln-guard"}) {
		return true
	}
	return cln.StartedAsPlugin(environ) && (len(args) == 0 || slices.Equal(args, []string{"--developer"}))
}

// abortKey keys the channel that the second signal closes.
type abortKey struct{}

// onSignals returns a context that ends at the first SIGINT or SIGTERM and
// carries a channel (abortOf) that the second one closes; from the third
// on, a signal has its default action (the process ends at once). stop
// releases the signals.
func onSignals(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	abort := make(chan struct{})
	ctx = context.WithValue(ctx, abortKey{}, (<-chan struct{})(abort))
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	released := make(chan struct{})
	go func() {
		defer signal.Stop(sigs)
		for n := 0; n < 2; n++ {
			select {
			case <-sigs:
			case <-released:
				return
			}
			if n == 0 {
				cancel()
			} else {
				close(abort)
			}
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() { close(released) })
		cancel()
	}
}

// abortOf returns the channel that the second signal closes (onSignals), or
// nil, which never closes, when ctx carries none.
func abortOf(ctx context.Context) <-chan struct{} {
	abort, _ := ctx.Value(abortKey{}).(<-chan struct{})
	return abort
}

func run(ctx context.Context, args []string, stdout io.Writer, environ []string) (err error) {
	defer func() { err = helpShown(err) }() // help.go: asking for help is no failure
	fs := flag.NewFlagSet("hearth", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() { fmt.Fprint(stdout, usage) }
	configPath := fs.String("config", "", "path of a TOML configuration file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	cmd := fs.Arg(0)
	if helpAsked(fs.Args()) {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if cmd == "cln-guard" { // main ran `hearth cln-guard` alone (guardCommand)
		return errors.New("cln-guard takes no options: lightningd runs `hearth cln-guard` as its plugin")
	}
	if cmd == "version" {
		fmt.Fprintf(stdout, "hearth %s (built %s)\n", version, buildTime)
		return nil
	}
	switch cmd {
	case "serve", "migrate", "ledger", "node", "plugin", "backup", "restore":
	default:
		fmt.Fprint(stdout, usage)
		if cmd == "" {
			return errors.New("no command given")
		}
		return fmt.Errorf("unknown command %q", cmd)
	}
	cfg, err := loadConfig(*configPath, environ)
	if err != nil {
		return err
	}
	if cmd == "plugin" {
		return pluginCommand(ctx, cfg, fs.Args()[1:], stdout, environ)
	}
	log := newLogger(cfg.Log, stdout)
	slog.SetDefault(log)
	switch cmd { // neither opens the database as the others do: no migration
	case "backup":
		return backupCommand(ctx, cfg, fs.Args()[1:], stdout, log)
	case "restore":
		return restoreCommand(ctx, cfg, fs.Args()[1:], stdout)
	}
	if cmd == "serve" {
		// The data directory holds local state whatever the database (the
		// SQLite database's folder is checked when it opens); a restore
		// must not run beside the server (hold.go).
		dir, err := store.ShareDir(cfg.DataDir, "serve")
		if err != nil {
			return err
		}
		defer dir.Release()
	}
	db, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	keepOpen := false // serve's stop did not finish: work still runs on db
	defer func() {
		if !keepOpen {
			db.Close()
		}
	}()
	if cmd == "serve" {
		mark, err := db.MarkServing(ctx)
		if err != nil {
			return err
		}
		defer mark.Release() // before db closes: its pool waits for the mark's connection
	}
	if cmd == "migrate" {
		release, err := holdForMigrate(ctx, cfg, db)
		if err != nil {
			return err
		}
		defer release()
	}
	if err := db.MigrateWith(ctx, migrateOptions(environ, log)); err != nil {
		return err
	}
	switch cmd {
	case "migrate":
		log.Info("migrations applied", "database", string(db.Dialect))
		return nil
	case "serve":
		err := serve(ctx, cfg, db, log)
		keepOpen = errors.Is(err, server.ErrUnclean)
		return err
	}
	led, err := app.OpenLedger(ctx, cfg, db, nil, app.Options{Builtins: builtinList(), Log: log})
	if err != nil {
		return err
	}
	defer app.CloseNode(led)
	if full, node, ok := ledgerCheckArgs(fs.Args()); ok {
		return ledgerCheckNode(ctx, led, full, node, stdout)
	}
	if cmd == "node" && fs.Arg(1) == "pay" && fs.NArg() == 3 {
		return nodePay(ctx, led, fs.Arg(2), stdout)
	}
	fmt.Fprint(stdout, usage)
	return fmt.Errorf("unknown command %q", strings.Join(fs.Args(), " "))
}

func nodePay(ctx context.Context, led *ledger.Service, bolt11 string, stdout io.Writer) error {
	payer, ok := led.Node().(api.OutsidePayer)
	if !ok {
		return errors.New("node pay needs the embedded node")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := led.Node().SubscribeInvoices(ctx)
	if err != nil {
		return err
	}
	go led.Consume(ctx, ch)
	if err := payer.PayAsOutsider(ctx, bolt11); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "paid")
	return nil
}

// holdMigrationEnv, when set in the environment, stops the process once it
// holds the migration lock, in the middle of its migration step, until it is
// stopped or killed: the hook of the tests that kill a server there.
const holdMigrationEnv = "HEARTH_TEST_HOLD_MIGRATION"

// migrateOptions are the options of the start's migration.
func migrateOptions(environ []string, log *slog.Logger) store.MigrateOptions {
	o := store.MigrateOptions{Log: log}
	for _, kv := range environ {
		if k, v, _ := strings.Cut(kv, "="); k == holdMigrationEnv && v != "" {
			o.Holding = func(ctx context.Context) error {
				log.Warn("holding the migration lock until stopped", "env", holdMigrationEnv)
				<-ctx.Done()
				return ctx.Err()
			}
		}
	}
	return o
}

func openDB(ctx context.Context, cfg config.Config) (*store.DB, error) {
	return store.Open(ctx, storeOptions(cfg))
}

// serve runs the server until ctx ends (the first SIGTERM or SIGINT), then
// stops it as server.Run says; the second signal (abortOf) ends the stop
// at once. It returns an error wrapping server.ErrUnclean when the stop did
// not finish: work still runs on db then.
func serve(ctx context.Context, cfg config.Config, db *store.DB, log *slog.Logger) error {
	if err := checkReplicaConfig(ctx, db, cfg, log); err != nil {
		return err
	}
	a, err := app.New(ctx, cfg, db, app.Options{Builtins: builtinList(), Log: log, Version: version})
	if err != nil {
		return err
	}
	if err := a.Start(ctx); err != nil {
		a.Close()
		return err
	}
	stopMetrics, err := serveMetrics(a, log)
	if err != nil {
		a.Close()
		return err
	}
	defer stopMetrics()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		a.Close()
		return fmt.Errorf("listening on %s: %w", cfg.Listen, err)
	}
	log.Info("hearth listening", "address", "http://"+displayAddr(ln.Addr()), "database", string(db.Dialect),
		"auth", cfg.Auth.Provider, "version", version)
	return server.Run(ctx, a, ln, server.Options{Version: version, BuildTime: buildTime, Abort: abortOf(ctx)})
}

func displayAddr(a net.Addr) string {
	s := a.String()
	if strings.HasPrefix(s, "[::]:") {
		return "localhost:" + strings.TrimPrefix(s, "[::]:")
	}
	if strings.HasPrefix(s, "0.0.0.0:") {
		return "localhost:" + strings.TrimPrefix(s, "0.0.0.0:")
	}
	return s
}

func newLogger(c config.Log, w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.Level)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
