package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/ab"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/fixture"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/nodes"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/phases"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/scale"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/signals"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// config is what the command line asks for.
type config struct {
	clients, payments, warmup int
	databases, pgURL          string
	pool                      int
	rate                      float64
	cpuProfile                string
	stream, noOutbox          bool
	replicaRounds             int
	outboxRounds              int

	withLND, withCLN             bool
	lndRounds, lndPayments       int
	lndWarmup                    int
	lndRate                      float64
	lndRatePayments, lndInFlight int
	lndGuardedEvery              time.Duration
	extPayments, extClients      int

	abA, abB             string
	abShared             bool
	abAEnv, abBEnv       string
	abRounds, abPayments int
	signalsRounds        int
	abWarmup             int
	abRate               float64
	abRatePayments       int
	abQuiet              float64
	abQuietWait          time.Duration
	withSignals          bool

	scale scale.Options
}

// register declares loadbench's flags on fs and returns what they fill.
func register(fs *flag.FlagSet) *config {
	c := &config{}
	fs.IntVar(&c.clients, "clients", 50, "concurrent clients")
	fs.IntVar(&c.payments, "payments", 20000, "payments measured per phase")
	fs.IntVar(&c.warmup, "warmup", 1000, "payments per phase before measuring")
	fs.StringVar(&c.databases, "databases", "sqlite,postgres", "databases to measure, comma separated")
	fs.StringVar(&c.pgURL, "postgres", os.Getenv(storetest.PostgresEnv), "PostgreSQL URL (a schema is created and dropped)")
	fs.IntVar(&c.pool, "pool", 0, "PostgreSQL connections (0: Hearth's default)")
	fs.Float64Var(&c.rate, "rate", 2000, "payments per second of the fixed-rate run")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the Hearth phases to this file")
	fs.BoolVar(&c.stream, "stream", false, "one client of the admin's event stream reads every event during the run")
	fs.BoolVar(&c.noOutbox, "no-outbox", false, "run without the outbox's reader (to measure what it costs)")
	fs.IntVar(&c.replicaRounds, "replica-rounds", 4, "on PostgreSQL: pairs of replica phases (one replica, two), interleaved, the order swapped every other pair")
	fs.IntVar(&c.outboxRounds, "outbox-rounds", 0, "instead: this many pairs of rounds of Hearth over HTTP flat out, the outbox on in one and off in the other (its reader, and on PostgreSQL its writes), interleaved in one process (internal/outboxcost)")

	fs.BoolVar(&c.withLND, "lnd", false, "instead: the embedded node against LND on a regtest network (internal/nodes; needs HEARTH_REGTEST_BIN)")
	fs.BoolVar(&c.withCLN, "cln", false, "instead (after -lnd's, with both): the embedded node against Core Lightning on a regtest network (internal/nodes; needs regtest.CLNBinaries and HEARTH_REGTEST_BIN)")
	fs.IntVar(&c.lndRounds, "lnd-rounds", 3, "with -lnd or -cln: flat-out rounds per node, interleaved")
	fs.IntVar(&c.lndPayments, "lnd-payments", 5000, "with -lnd or -cln: payments measured per flat-out round")
	fs.IntVar(&c.lndWarmup, "lnd-warmup", 500, "with -lnd or -cln: payments per round before measuring")
	fs.Float64Var(&c.lndRate, "lnd-rate", 100, "with -lnd or -cln: payments per second of the fixed-rate round")
	fs.IntVar(&c.lndRatePayments, "lnd-rate-payments", 2000, "with -lnd or -cln: payments measured at -lnd-rate")
	fs.IntVar(&c.lndInFlight, "lnd-inflight", 0, "with -lnd or -cln: the withdrawal's cancels in flight at the node (0: its default)")
	fs.DurationVar(&c.lndGuardedEvery, "lnd-guarded-every", 0, "with -lnd: the withdrawal's gap between cancels while LND asks Hearth before accepting a payment (0: its default)")
	fs.IntVar(&c.extPayments, "ext-payments", 200, "with -lnd or -cln: external payments measured per round, to each outside peer, with one client and with -ext-clients (0: none; internal/nodes/external.go)")
	fs.IntVar(&c.extClients, "ext-clients", 8, "with -lnd or -cln: clients of the second external round to each peer")

	fs.StringVar(&c.abA, "ab", "", "instead: an A/B run of two builds over HTTP from this process (internal/ab): build A, a git revision or a hearth binary, against -ab-b")
	fs.StringVar(&c.abB, "ab-b", ".", "with -ab: build B, a git revision, a hearth binary, or . for the working tree")
	fs.BoolVar(&c.abShared, "ab-shared", false, "with -ab: both builds' instances serve every round (else each round starts fresh ones)")
	fs.StringVar(&c.abAEnv, "ab-a-env", "", "with -ab: KEY=VALUE pairs, comma separated, set for A's server alone (e.g. HEARTH_METRICS_OFF=true)")
	fs.StringVar(&c.abBEnv, "ab-b-env", "", "with -ab: KEY=VALUE pairs, comma separated, set for B's server alone")
	fs.IntVar(&c.abRounds, "ab-rounds", 6, "with -ab: interleaved rounds, each on fresh instances, B first in every other one (one build's instances differ by up to 16 %: fewer rounds say little)")
	fs.IntVar(&c.abPayments, "ab-payments", 6000, "with -ab: payments measured per closed-loop phase")
	fs.IntVar(&c.abWarmup, "ab-warmup", 500, "with -ab: payments before measuring each closed-loop phase")
	fs.Float64Var(&c.abRate, "ab-rate", 100, "with -ab: payments per second of the fixed-rate phase")
	fs.IntVar(&c.abRatePayments, "ab-rate-payments", 2200, "with -ab: payments measured at -ab-rate")
	fs.Float64Var(&c.abQuiet, "ab-quiet", 0.1, "with -ab: a phase starts once the machine's processors were busy less than this share of a second …")
	fs.DurationVar(&c.abQuietWait, "ab-quiet-wait", 30*time.Second, "with -ab: … or after this long")
	fs.IntVar(&c.signalsRounds, "signals-rounds", 3, "with -signals: then rounds of flat out with the webhooks and without them, interleaved: what delivering costs paying")
	fs.BoolVar(&c.withSignals, "signals", false, "instead: how soon a payment's invoice.settled reaches a webhook and the admin's stream, on a `hearth serve` of -ab-b driven as in -ab, at -ab-rate (-ab-rate-payments) then flat out (-ab-payments after -ab-warmup) (internal/signals)")

	c.scale = scale.Options{Name: "hearth_scale"}
	o := &c.scale
	fs.IntVar(&o.N, "scale", 0, "instead: the scale phase (internal/scale) on books of this many payments and invoices on PostgreSQL, seeded once and kept; its lists, ledger checks, backup, restore and payment rate")
	fs.IntVar(&o.NSQLite, "scale-sqlite", 0, "with -scale: payments and invoices on SQLite (0: a tenth of -scale)")
	fs.StringVar(&o.Dir, "scale-dir", "", "with -scale: where the books are kept (SQLite's, and every backup while measured; default ${XDG_CACHE_HOME:-~/.cache}/hearth/loadbench/scale)")
	fs.BoolVar(&o.Reseed, "scale-reseed", false, "with -scale: seed the books again even when they are kept")
	fs.IntVar(&o.Payments, "scale-payments", 10000, "with -scale: payments measured flat out on the books (after 500 unmeasured), the ones the incremental ledger check then reads")
	fs.IntVar(&o.BackupRun, "scale-backup-run", 2000, "with -scale: payments per phase before and during a backup")
	fs.IntVar(&o.Calls, "scale-calls", 10, "with -scale: calls of each list measured")
	fs.IntVar(&o.BackupNice, "scale-backup-nice", 0, "with -scale: run the backup measured beside payments at this niceness (nice -n)")
	fs.StringVar(&o.Hearth, "scale-hearth", ".", "with -scale: the build measured, a git revision, a hearth binary, or . for the working tree")
	fs.StringVar(&o.Only, "scale-only", "", "with -scale: backup measures the payments and the backup beside them alone (no lists, checks, restore); lists the lists alone")
	return c
}

// mode is what a run does: one of its modes, chosen by the flags.
type mode int

const (
	modePhases  mode = iota // the default: bare database, Hearth over HTTP, at -rate (internal/phases)
	modeOutbox              // -outbox-rounds (internal/outboxcost)
	modeNodes               // -lnd, -cln (internal/nodes)
	modeScale               // -scale (internal/scale)
	modeAB                  // -ab (internal/ab)
	modeSignals             // -signals (internal/signals)
)

// mode is the mode the flags ask for; when they name several, -signals
// comes first, then -ab, -scale, -lnd or -cln, and -outbox-rounds.
func (c *config) mode() mode {
	switch {
	case c.withSignals:
		return modeSignals
	case c.abA != "":
		return modeAB
	case c.scale.N > 0:
		return modeScale
	case c.withLND || c.withCLN:
		return modeNodes
	case c.outboxRounds > 0:
		return modeOutbox
	}
	return modePhases
}

// check refuses values the run's mode cannot run with (the scale phase
// checks its own, once it has filled in its defaults).
func (c *config) check() error {
	if c.clients <= 0 || c.payments < c.clients || c.warmup < 0 || c.rate <= 0 || c.replicaRounds <= 0 {
		return errors.New("need clients > 0, payments ≥ clients, warmup ≥ 0, rate > 0, replica-rounds > 0")
	}
	switch c.mode() {
	case modeAB, modeSignals:
		for _, kv := range append(envPairs(c.abAEnv), envPairs(c.abBEnv)...) {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				return fmt.Errorf("%q is no KEY=VALUE pair", kv)
			}
		}
		if c.abRounds <= 0 || c.abPayments < c.clients || c.abRatePayments < c.clients || c.abWarmup < 0 || c.abRate <= 0 {
			return errors.New("need ab-rounds > 0, ab-payments and ab-rate-payments ≥ clients, ab-warmup ≥ 0, ab-rate > 0")
		}
	case modeNodes:
		o := c.nodes()
		if o.Rounds <= 0 || o.Payments < o.Clients || o.RatePayments < o.Clients || o.Warmup < 0 || o.Rate <= 0 || o.ExtPayments < 0 || o.ExtClients <= 0 {
			return errors.New("need lnd-rounds > 0, lnd-payments and lnd-rate-payments ≥ clients, lnd-warmup ≥ 0, lnd-rate > 0, ext-payments ≥ 0, ext-clients > 0")
		}
	}
	return nil
}

// phases are the options of the default run, and of -outbox-rounds.
func (c *config) phases() phases.Options {
	return phases.Options{Options: fixture.Options{Clients: c.clients, Payments: c.payments, Warmup: c.warmup, Pool: c.pool, Stream: c.stream,
		NoOutbox: c.noOutbox, OutboxRounds: c.outboxRounds, ReplicaRounds: c.replicaRounds}, Rate: c.rate, CPUProfile: c.cpuProfile}
}

// nodes are the options of -lnd and -cln.
func (c *config) nodes() nodes.Options {
	return nodes.Options{Clients: c.clients, Pool: c.pool, Rounds: c.lndRounds, Payments: c.lndPayments, Warmup: c.lndWarmup, Rate: c.lndRate,
		RatePayments: c.lndRatePayments, InFlight: c.lndInFlight, GuardedEvery: c.lndGuardedEvery, ExtPayments: c.extPayments, ExtClients: c.extClients}
}

// nodeKinds are the real nodes -lnd and -cln name, in the order they run.
func (c *config) nodeKinds() []string {
	var kinds []string
	if c.withLND {
		kinds = append(kinds, "lnd")
	}
	if c.withCLN {
		kinds = append(kinds, "cln")
	}
	return kinds
}

// ab are the options of -ab.
func (c *config) ab() ab.Options {
	return ab.Options{A: c.abA, B: c.abB, AEnv: envPairs(c.abAEnv), BEnv: envPairs(c.abBEnv), Fresh: !c.abShared, Rounds: c.abRounds,
		Clients: c.clients, Warmup: c.abWarmup, Payments: c.abPayments, Rate: c.abRate, RatePayments: c.abRatePayments,
		Quiet: c.abQuiet, QuietWait: c.abQuietWait}
}

// signals are the options of -signals, which takes -ab's.
func (c *config) signals() signals.Options {
	return signals.Options{Build: c.abB, Clients: c.clients, Warmup: c.abWarmup, Payments: c.abPayments, Rate: c.abRate,
		RatePayments: c.abRatePayments, Quiet: c.abQuiet, QuietWait: c.abQuietWait, Rounds: c.signalsRounds}
}

// envPairs splits -ab-a-env's or -ab-b-env's comma-separated KEY=VALUE
// pairs; a pair without "=" is kept, and refused by check.
func envPairs(s string) []string {
	var out []string
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv != "" {
			out = append(out, kv)
		}
	}
	return out
}
