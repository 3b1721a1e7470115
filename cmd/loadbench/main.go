// Command loadbench measures internal payments: Hearth's HTTP API on
// loopback against the bare database doing the same writes, side by side,
// on SQLite and on PostgreSQL.
//
// For each database it prepares one fresh database with payer wallets (one
// per client, each with its own API key), payee wallets and enough real
// BOLT11 invoices, then runs three phases with the same number of
// concurrent clients:
//
//   - bare: a Go loop per client runs the ledger's writes for an internal
//     payment directly on the database connection — the conditional debit,
//     the single-winner invoice update, the credit and the payment insert, in
//     one transaction. No HTTP, no decoding, no reads: the limit.
//   - hearth: each client sends POST /v1/me/payments {input: bolt11} with its
//     API key to a Hearth server on 127.0.0.1, over a keep-alive connection,
//     as fast as the answers come (the throughput).
//   - hearth at -rate: the same, the clients together starting -rate
//     payments a second on a fixed schedule (the latency at that load).
//
// On PostgreSQL two more phases pay flat out around a ring of wallets
// through one Hearth replica, then through two on the same database
// (replicas.go), with the deadlocks PostgreSQL broke in each.
//
// Every phase reports payments per second and latency percentiles; the
// ledger is checked afterwards, and every payment must have succeeded.
//
// With -ab it instead compares two builds as an operator would see them
// (ab.go): each runs as a `hearth serve` process of its own on a fresh
// database, set up and paid over HTTP from this process (abload.go), in
// interleaved rounds with the order swapped.
//
//	go run ./cmd/loadbench -clients 50 -payments 20000
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/ab"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/fixture"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/nodes"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/outboxcost"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/phases"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/scale"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/signals"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/plugins/node/cln"
)

func main() {
	cln.RunIfPlugin() // lightningd runs loadbench, which runs Hearth on it, as its invoice guard
	clients := flag.Int("clients", 50, "concurrent clients")
	payments := flag.Int("payments", 20000, "payments measured per phase")
	warmup := flag.Int("warmup", 1000, "payments per phase before measuring")
	databases := flag.String("databases", "sqlite,postgres", "databases to measure, comma separated")
	pgURL := flag.String("postgres", os.Getenv(storetest.PostgresEnv), "PostgreSQL URL (a schema is created and dropped)")
	pool := flag.Int("pool", 0, "PostgreSQL connections (0: Hearth's default)")
	rate := flag.Float64("rate", 2000, "payments per second of the fixed-rate run")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the Hearth phases to this file")
	stream := flag.Bool("stream", false, "one client of the admin's event stream reads every event during the run")
	noOutbox := flag.Bool("no-outbox", false, "run without the outbox's reader (to measure what it costs)")
	replicaRounds := flag.Int("replica-rounds", 4, "on PostgreSQL: pairs of replica phases (one replica, two), interleaved, the order swapped every other pair")
	outboxRounds := flag.Int("outbox-rounds", 0, "instead: this many pairs of rounds of Hearth over HTTP flat out, the outbox on in one and off in the other (its reader, and on PostgreSQL its writes), interleaved in one process (outboxcost.go)")
	withLND := flag.Bool("lnd", false, "instead: the embedded node against LND on a regtest network (nodes.go; needs HEARTH_REGTEST_BIN)")
	withCLN := flag.Bool("cln", false, "instead (after -lnd's, with both): the embedded node against Core Lightning on a regtest network (nodes.go; needs regtest.CLNBinaries and HEARTH_REGTEST_BIN)")
	lndRounds := flag.Int("lnd-rounds", 3, "with -lnd or -cln: flat-out rounds per node, interleaved")
	lndPayments := flag.Int("lnd-payments", 5000, "with -lnd or -cln: payments measured per flat-out round")
	lndWarmup := flag.Int("lnd-warmup", 500, "with -lnd or -cln: payments per round before measuring")
	lndRate := flag.Float64("lnd-rate", 100, "with -lnd or -cln: payments per second of the fixed-rate round")
	lndRatePayments := flag.Int("lnd-rate-payments", 2000, "with -lnd or -cln: payments measured at -lnd-rate")
	lndInFlight := flag.Int("lnd-inflight", 0, "with -lnd or -cln: the withdrawal's cancels in flight at the node (0: its default)")
	lndEvery := flag.Duration("lnd-guarded-every", 0, "with -lnd: the withdrawal's gap between cancels while LND asks Hearth before accepting a payment (0: its default)")
	extPayments := flag.Int("ext-payments", 200, "with -lnd or -cln: external payments measured per round, to each outside peer, with one client and with -ext-clients (0: none; nodesext.go)")
	extClients := flag.Int("ext-clients", 8, "with -lnd or -cln: clients of the second external round to each peer")
	abA := flag.String("ab", "", "instead: an A/B run of two builds over HTTP from this process (ab.go): build A, a git revision or a hearth binary, against -ab-b")
	abB := flag.String("ab-b", ".", "with -ab: build B, a git revision, a hearth binary, or . for the working tree")
	abShared := flag.Bool("ab-shared", false, "with -ab: both builds' instances serve every round (else each round starts fresh ones)")
	abAEnv := flag.String("ab-a-env", "", "with -ab: KEY=VALUE pairs, comma separated, set for A's server alone (e.g. HEARTH_METRICS_OFF=true)")
	abBEnv := flag.String("ab-b-env", "", "with -ab: KEY=VALUE pairs, comma separated, set for B's server alone")
	abRounds := flag.Int("ab-rounds", 6, "with -ab: interleaved rounds, each on fresh instances, B first in every other one (one build's instances differ by up to 16 %: fewer rounds say little)")
	abPayments := flag.Int("ab-payments", 6000, "with -ab: payments measured per closed-loop phase")
	abWarmup := flag.Int("ab-warmup", 500, "with -ab: payments before measuring each closed-loop phase")
	abRate := flag.Float64("ab-rate", 100, "with -ab: payments per second of the fixed-rate phase")
	abRatePayments := flag.Int("ab-rate-payments", 2200, "with -ab: payments measured at -ab-rate")
	abQuiet := flag.Float64("ab-quiet", 0.1, "with -ab: a phase starts once the machine's processors were busy less than this share of a second …")
	abQuietWait := flag.Duration("ab-quiet-wait", 30*time.Second, "with -ab: … or after this long")
	withSignals := flag.Bool("signals", false, "instead: how soon a payment's invoice.settled reaches a webhook and the admin's stream, on a `hearth serve` of -ab-b driven as in -ab, at -ab-rate (-ab-rate-payments) then flat out (-ab-payments after -ab-warmup) (signals.go)")
	sc := scale.Options{Name: "hearth_scale"}
	flag.IntVar(&sc.N, "scale", 0, "instead: the scale phase (scale.go) on books of this many payments and invoices on PostgreSQL, seeded once and kept; its lists, ledger checks, backup, restore and payment rate")
	flag.IntVar(&sc.NSQLite, "scale-sqlite", 0, "with -scale: payments and invoices on SQLite (0: a tenth of -scale)")
	flag.StringVar(&sc.Dir, "scale-dir", "", "with -scale: where the books are kept (SQLite's, and every backup while measured; default ${XDG_CACHE_HOME:-~/.cache}/hearth/loadbench/scale)")
	flag.BoolVar(&sc.Reseed, "scale-reseed", false, "with -scale: seed the books again even when they are kept")
	flag.IntVar(&sc.Payments, "scale-payments", 10000, "with -scale: payments measured flat out on the books (after 500 unmeasured), the ones the incremental ledger check then reads")
	flag.IntVar(&sc.BackupRun, "scale-backup-run", 2000, "with -scale: payments per phase before and during a backup")
	flag.IntVar(&sc.Calls, "scale-calls", 10, "with -scale: calls of each list measured")
	flag.IntVar(&sc.BackupNice, "scale-backup-nice", 0, "with -scale: run the backup measured beside payments at this niceness (nice -n)")
	flag.StringVar(&sc.Hearth, "scale-hearth", ".", "with -scale: the build measured, a git revision, a hearth binary, or . for the working tree")
	flag.StringVar(&sc.Only, "scale-only", "", "with -scale: backup measures the payments and the backup beside them alone (no lists, checks, restore); lists the lists alone")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	opts := phases.Options{Options: fixture.Options{Clients: *clients, Payments: *payments, Warmup: *warmup, Pool: *pool, Stream: *stream, NoOutbox: *noOutbox,
		OutboxRounds: *outboxRounds, ReplicaRounds: *replicaRounds}, Rate: *rate, CPUProfile: *cpuProfile}
	if opts.Clients <= 0 || opts.Payments < opts.Clients || opts.Warmup < 0 || opts.Rate <= 0 || opts.ReplicaRounds <= 0 {
		fmt.Fprintln(os.Stderr, "loadbench: need clients > 0, payments ≥ clients, warmup ≥ 0, rate > 0, replica-rounds > 0")
		os.Exit(2)
	}
	ctx := context.Background()
	if *abA != "" || *withSignals {
		o := ab.Options{A: *abA, B: *abB, AEnv: envPairs(*abAEnv), BEnv: envPairs(*abBEnv), Fresh: !*abShared, Rounds: *abRounds, Clients: *clients, Warmup: *abWarmup, Payments: *abPayments,
			Rate: *abRate, RatePayments: *abRatePayments, Quiet: *abQuiet, QuietWait: *abQuietWait}
		for _, kv := range append(o.AEnv[:len(o.AEnv):len(o.AEnv)], o.BEnv...) {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				fmt.Fprintf(os.Stderr, "loadbench: %q is no KEY=VALUE pair\n", kv)
				os.Exit(2)
			}
		}
		if o.Rounds <= 0 || o.Payments < o.Clients || o.RatePayments < o.Clients || o.Warmup < 0 || o.Rate <= 0 {
			fmt.Fprintln(os.Stderr, "loadbench: need ab-rounds > 0, ab-payments and ab-rate-payments ≥ clients, ab-warmup ≥ 0, ab-rate > 0")
			os.Exit(2)
		}
		run := func() error { return ab.Run(ctx, *databases, *pgURL, o) }
		if *withSignals {
			run = func() error {
				return signals.Run(ctx, *databases, *pgURL, signals.Options{Build: o.B, Clients: o.Clients, Warmup: o.Warmup, Payments: o.Payments,
					Rate: o.Rate, RatePayments: o.RatePayments, Quiet: o.Quiet, QuietWait: o.QuietWait})
			}
		}
		if err := run(); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
			os.Exit(1)
		}
		return
	}
	if sc.N > 0 {
		if err := scale.Run(ctx, *databases, *pgURL, *clients, sc); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench -scale:", err)
			os.Exit(1)
		}
		return
	}
	if *withLND || *withCLN {
		c := nodes.Options{Clients: opts.Clients, Pool: opts.Pool, Rounds: *lndRounds, Payments: *lndPayments, Warmup: *lndWarmup, Rate: *lndRate, RatePayments: *lndRatePayments,
			InFlight: *lndInFlight, GuardedEvery: *lndEvery, ExtPayments: *extPayments, ExtClients: *extClients}
		if c.Rounds <= 0 || c.Payments < c.Clients || c.RatePayments < c.Clients || c.Warmup < 0 || c.Rate <= 0 || c.ExtPayments < 0 || c.ExtClients <= 0 {
			fmt.Fprintln(os.Stderr, "loadbench: need lnd-rounds > 0, lnd-payments and lnd-rate-payments ≥ clients, lnd-warmup ≥ 0, lnd-rate > 0, ext-payments ≥ 0, ext-clients > 0")
			os.Exit(2)
		}
		var kinds []string
		if *withLND {
			kinds = append(kinds, "lnd")
		}
		if *withCLN {
			kinds = append(kinds, "cln")
		}
		if err := nodes.Run(ctx, kinds, *databases, *pgURL, c); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
			os.Exit(1)
		}
		return
	}
	if opts.OutboxRounds > 0 {
		if err := outboxcost.Run(ctx, *databases, *pgURL, opts.Options); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
			os.Exit(1)
		}
		return
	}
	if err := phases.Run(ctx, *databases, *pgURL, opts); err != nil {
		os.Exit(1) // each database's error is said as it comes
	}
}

// envPairs splits -ab-a-env's or -ab-b-env's comma-separated KEY=VALUE
// pairs; a pair without "=" is kept, and refused by the caller.
func envPairs(s string) []string {
	var out []string
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv != "" {
			out = append(out, kv)
		}
	}
	return out
}
