package main

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/fixture"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/nodes"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/phases"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/scale"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/signals"
)

// parse reads args as loadbench's command line does.
func parse(t *testing.T, args ...string) *config {
	t.Helper()
	fs := flag.NewFlagSet("loadbench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c := register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	return c
}

// TestFlags: every flag scripts/bench.sh and the docs use, with its
// default, as it was before the command was split into packages.
func TestFlags(t *testing.T) {
	t.Setenv("HEARTH_TEST_POSTGRES_URL", "postgres://from-the-environment")
	fs := flag.NewFlagSet("loadbench", flag.ContinueOnError)
	register(fs)
	want := map[string]string{
		"clients": "50", "payments": "20000", "warmup": "1000", "databases": "sqlite,postgres", "postgres": "postgres://from-the-environment",
		"pool": "0", "rate": "2000", "cpuprofile": "", "stream": "false", "no-outbox": "false", "replica-rounds": "4", "outbox-rounds": "0",
		"lnd": "false", "cln": "false", "lnd-rounds": "3", "lnd-payments": "5000", "lnd-warmup": "500", "lnd-rate": "100",
		"lnd-rate-payments": "2000", "lnd-inflight": "0", "lnd-guarded-every": "0s", "ext-payments": "200", "ext-clients": "8",
		"ab": "", "ab-b": ".", "ab-shared": "false", "ab-a-env": "", "ab-b-env": "", "ab-rounds": "6", "ab-payments": "6000",
		"ab-warmup": "500", "ab-rate": "100", "ab-rate-payments": "2200", "ab-quiet": "0.1", "ab-quiet-wait": "30s", "signals": "false", "signals-rounds": "3",
		"scale": "0", "scale-sqlite": "0", "scale-dir": "", "scale-reseed": "false", "scale-payments": "10000", "scale-backup-run": "2000",
		"scale-calls": "10", "scale-backup-nice": "0", "scale-hearth": ".", "scale-only": "",
	}
	got := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		got[f.Name] = f.DefValue
		if f.Usage == "" {
			t.Errorf("-%s says nothing of itself", f.Name)
		}
	})
	for name, def := range want {
		if d, ok := got[name]; !ok || d != def {
			t.Errorf("-%s: default %q (declared %v), want %q", name, d, ok, def)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("-%s is new: add it here", name)
		}
	}
}

// TestMode: each mode's flag chooses it, and when several are given,
// -signals, then -ab, -scale, -lnd or -cln, and -outbox-rounds win, as
// before.
func TestMode(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want mode
	}{
		{nil, modePhases},
		{[]string{"-payments", "100", "-stream"}, modePhases},
		{[]string{"-outbox-rounds", "20", "-payments", "3000", "-warmup", "300"}, modeOutbox},
		{[]string{"-lnd"}, modeNodes},
		{[]string{"-cln", "-outbox-rounds", "2"}, modeNodes},
		{[]string{"-scale", "1000000", "-lnd"}, modeScale},
		{[]string{"-ab", "cf1654f", "-scale", "100"}, modeAB},
		{[]string{"-signals", "-ab", "cf1654f"}, modeSignals},
		{[]string{"-signals", "-ab-rate-payments", "1000", "-ab-payments", "3000"}, modeSignals},
	} {
		if got := parse(t, tc.args...).mode(); got != tc.want {
			t.Errorf("%q: mode %d, want %d", tc.args, got, tc.want)
		}
	}
}

// TestCheck refuses what a mode cannot run with, in the words the command
// has always used; a mode's own limits bind it alone.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for none
	}{
		{nil, ""},
		{[]string{"-clients", "0"}, "need clients > 0, payments ≥ clients"},
		{[]string{"-clients", "10", "-payments", "9"}, "need clients > 0, payments ≥ clients"},
		{[]string{"-warmup", "-1"}, "warmup ≥ 0"},
		{[]string{"-rate", "0"}, "rate > 0"},
		{[]string{"-replica-rounds", "0", "-ab", "x"}, "replica-rounds > 0"},
		{[]string{"-ab", "x", "-ab-a-env", "A=1, B"}, `"B" is no KEY=VALUE pair`},
		{[]string{"-signals", "-ab-b-env", "=1"}, `"=1" is no KEY=VALUE pair`},
		{[]string{"-ab-b-env", "B"}, ""}, // -ab's own flags do not bind the default run
		{[]string{"-ab", "x", "-ab-rounds", "0"}, "need ab-rounds > 0"},
		{[]string{"-signals", "-ab-rate-payments", "49"}, "ab-rate-payments ≥ clients"},
		{[]string{"-ab", "x", "-ab-rate-payments", "1000", "-ab-payments", "3000", "-ab-a-env", "HEARTH_METRICS_OFF=true"}, ""},
		{[]string{"-lnd", "-lnd-rounds", "0"}, "need lnd-rounds > 0"},
		{[]string{"-cln", "-ext-clients", "0"}, "ext-clients > 0"},
		{[]string{"-lnd", "-ext-payments", "0"}, ""},
		{[]string{"-lnd-rounds", "0"}, ""},
		{[]string{"-scale", "100", "-scale-only", "x"}, ""}, // the scale phase checks its own
	} {
		err := parse(t, tc.args...).check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestOptions: each mode gets the flags meant for it.
func TestOptions(t *testing.T) {
	c := parse(t, "-clients", "8", "-payments", "400", "-warmup", "40", "-pool", "7", "-rate", "300", "-stream", "-no-outbox",
		"-replica-rounds", "2", "-outbox-rounds", "3", "-cpuprofile", "/tmp/p")
	if got, want := c.phases(), (phases.Options{Options: fixture.Options{Clients: 8, Payments: 400, Warmup: 40, Pool: 7, Stream: true, NoOutbox: true,
		OutboxRounds: 3, ReplicaRounds: 2}, Rate: 300, CPUProfile: "/tmp/p"}); got != want {
		t.Errorf("phases %+v, want %+v", got, want)
	}
	c = parse(t, "-clients", "4", "-pool", "3", "-lnd", "-cln", "-lnd-rounds", "2", "-lnd-payments", "40", "-lnd-warmup", "8", "-lnd-rate", "200",
		"-lnd-rate-payments", "20", "-lnd-inflight", "5", "-lnd-guarded-every", "20ms", "-ext-payments", "6", "-ext-clients", "3")
	if got, want := c.nodes(), (nodes.Options{Clients: 4, Pool: 3, Rounds: 2, Payments: 40, Warmup: 8, Rate: 200, RatePayments: 20, InFlight: 5,
		GuardedEvery: 20 * time.Millisecond, ExtPayments: 6, ExtClients: 3}); got != want {
		t.Errorf("nodes %+v, want %+v", got, want)
	}
	if got := c.nodeKinds(); !slices.Equal(got, []string{"lnd", "cln"}) {
		t.Errorf("kinds %q, want lnd then cln", got)
	}
	if got := parse(t, "-cln").nodeKinds(); !slices.Equal(got, []string{"cln"}) {
		t.Errorf("kinds of -cln %q", got)
	}
	c = parse(t, "-clients", "4", "-ab", "cf1654f", "-ab-b", "/bin/hearth", "-ab-shared", "-ab-a-env", " A=1 ,, B=2", "-ab-b-env", "C=3",
		"-ab-rounds", "8", "-ab-payments", "3000", "-ab-warmup", "300", "-ab-rate", "50", "-ab-rate-payments", "1000", "-ab-quiet", "0.5", "-ab-quiet-wait", "1m")
	got := c.ab()
	if got.A != "cf1654f" || got.B != "/bin/hearth" || got.Fresh || !slices.Equal(got.AEnv, []string{"A=1", "B=2"}) || !slices.Equal(got.BEnv, []string{"C=3"}) ||
		got.Rounds != 8 || got.Clients != 4 || got.Payments != 3000 || got.Warmup != 300 || got.Rate != 50 || got.RatePayments != 1000 ||
		got.Quiet != 0.5 || got.QuietWait != time.Minute {
		t.Errorf("ab %+v", got)
	}
	if !parse(t, "-ab", "x").ab().Fresh {
		t.Error("-ab without -ab-shared: not fresh instances each round")
	}
	if got, want := c.signals(), (signals.Options{Build: "/bin/hearth", Clients: 4, Warmup: 300, Payments: 3000, Rate: 50, RatePayments: 1000,
		Quiet: 0.5, QuietWait: time.Minute, Rounds: 3}); got != want {
		t.Errorf("signals %+v, want %+v", got, want)
	}
	c = parse(t, "-scale", "10000000", "-scale-sqlite", "1000000", "-scale-dir", "/d", "-scale-reseed", "-scale-payments", "500",
		"-scale-backup-run", "100", "-scale-calls", "2", "-scale-backup-nice", "10", "-scale-hearth", "abc", "-scale-only", "lists")
	if want := (scale.Options{N: 10_000_000, NSQLite: 1_000_000, Name: "hearth_scale", Dir: "/d", Reseed: true, Payments: 500, BackupRun: 100,
		Calls: 2, BackupNice: 10, Hearth: "abc", Only: "lists"}); c.scale != want {
		t.Errorf("scale %+v, want %+v", c.scale, want)
	}
}

func TestEnvPairs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,", nil},
		{"HEARTH_METRICS_OFF=true", []string{"HEARTH_METRICS_OFF=true"}},
		{"A=1, B=x=y ,C", []string{"A=1", "B=x=y", "C"}},
	} {
		if got := envPairs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("envPairs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
