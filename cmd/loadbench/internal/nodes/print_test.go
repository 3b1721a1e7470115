package nodes

import (
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
)

// row is a round of node: n payments of 1 ms in a second.
func row(node, name string, n int, fixed bool) nodeRow {
	r := nodeRow{node: node, Result: load.Result{Name: name, FixedRate: fixed, Elapsed: time.Second}}
	for range n {
		r.Latencies = append(r.Latencies, time.Millisecond)
	}
	return r
}

// TestPrintNodeRows: the real node's flat-out rate as a share of the
// embedded node's round by round, and median against median, the
// fixed-rate rounds aside; the cancels' delays, and a round whose cancels
// did not all come said in capitals; the external rounds apart, with the
// fee per payment, warm-up included.
func TestPrintNodeRows(t *testing.T) {
	lnd1 := row("lnd", "round 1 flat out", 800, false)
	lnd1.windows = []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond, 40 * time.Millisecond}
	lnd1.drained, lnd1.nodeCPU, lnd1.nodeCPUPaid = 1500*time.Millisecond, 2*time.Second, 1000
	lnd2 := row("lnd", "round 2 flat out", 500, false)
	lnd2.unconfirmed = 3
	ext := row("lnd", "to lnd, 1 client", 10, false)
	ext.peer, ext.clients, ext.feesMsat = "lnd", 1, 22 // 11 payments with the warm-up
	ext.CPU = machine.Reading{Self: 50 * time.Millisecond}
	var out strings.Builder
	printNodeRows(&out, "sqlite", "LND", []nodeRow{
		row("embedded", "round 1 flat out", 1000, false), lnd1,
		lnd2, row("embedded", "round 2 flat out", 1000, false),
		row("embedded", "at 100/s", 100, true), row("lnd", "at 100/s", 100, true),
		ext,
	}, "0.50 0.40 0.30", "1.00 0.80 0.60")
	got := out.String()
	for _, want := range []string{
		"sqlite, embedded node against LND (load average 0.50 0.40 0.30 before, 1.00 0.80 0.60 after;",
		"20ms / 40ms / 40ms", // the cancels' p50 (the 2nd of 4: nearest rank), p99, max
		"   1.5s\n",          // drained
		"2000 ",              // the nodes' µs per payment
		"- (3 NEVER CANCELLED)\n",
		"sqlite: LND's payments/s of the embedded node's, round by round: 80%, 50%; median against median: 80%\n",
		"sqlite, external payments of 1 sat on LND, each through the channel to the outside peer\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	f := strings.Fields(got[strings.LastIndex(got, "lnd       to lnd"):])
	if len(f) != 12 || f[5] != "10" || f[6] != "10.0" || f[10] != "2.0" || f[11] != "5000+-" {
		t.Errorf("external row %q: want 10 payments at 10.0/s, 2.0 msat of fee a payment, 5000 µs of CPU and no nodes' figure", f)
	}
}

// TestPrintNodeRowsInternalOnly: without external rounds nothing is said
// of them.
func TestPrintNodeRowsInternalOnly(t *testing.T) {
	var out strings.Builder
	printNodeRows(&out, "postgres", "Core Lightning", []nodeRow{row("embedded", "round 1 flat out", 100, false), row("cln", "round 1 flat out", 50, false)}, "?", "?")
	if strings.Contains(out.String(), "external") || !strings.Contains(out.String(), "round by round: 50%; median against median: 50%") {
		t.Errorf("output:\n%s", out.String())
	}
}

// TestIdleBusy takes the idle rates over a result's span off its
// processor time, never below zero.
func TestIdleBusy(t *testing.T) {
	idle := idleRates{nodes: 0.5, self: 0.1, pg: 0.2}
	r := load.Result{Elapsed: 2 * time.Second, CPU: machine.Reading{Self: time.Second, PG: 300 * time.Millisecond}}
	got := idle.busy(r).CPU
	if got.Self != 800*time.Millisecond || got.PG != 0 {
		t.Errorf("busy %+v, want 800ms of this process and none of PostgreSQL's (below its idle)", got)
	}
	if r.CPU.Self != time.Second {
		t.Error("busy changed the result it was given")
	}
	if s := (nodeRow{nodeCPU: 3 * time.Second, nodeCPUPaid: 1500}).nodesPerPayment(); s != "2000" {
		t.Errorf("nodes per payment %q, want 2000", s)
	}
	if s := (nodeRow{}).nodesPerPayment(); s != "-" {
		t.Errorf("nodes per payment unmeasured %q, want -", s)
	}
}
