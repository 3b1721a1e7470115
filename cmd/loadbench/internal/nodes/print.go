package nodes

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// nodeRow is one round of one node.
type nodeRow struct {
	node string
	load.Result
	windows []time.Duration // sorted; a real node's internal rounds only
	drained time.Duration   // from the round's end until the last cancel
	// unconfirmed counts the payments of the round whose cancel never
	// came: the withdrawal never saw their events (see wait).
	unconfirmed int
	// nodeCPU is the processor time of the network's processes (the
	// nodes, the chain) above their idle rate, over nodeCPUPaid payments
	// (as Result.CPU is Hearth's and PostgreSQL's above theirs):
	// in an internal round, from its start until its last cancel; in an
	// external one, over the measured payments.
	nodeCPU     time.Duration
	nodeCPUPaid int
	// An external round's: the outside peer paid, its clients, and the
	// fees of its payments, warm-up included.
	peer     string
	clients  int
	feesMsat int64
}

// printNodeRows prints the comparison of one database, the real node's
// (title) rate against the embedded node's, round by round, and its
// external rounds.
func printNodeRows(w io.Writer, db, title string, rows []nodeRow, loadBefore, loadAfter string) {
	fmt.Fprintf(w, "\n%s, embedded node against %s (load average %s before, %s after; µs/pay: processor time above idle, per payment; nodes: the %s network's processes)\n",
		db, title, loadBefore, loadAfter, title)
	fmt.Fprintf(w, "%-9s %-18s %9s %11s %9s %9s %9s %18s %13s   %-28s %s\n", "node", "run", "payments", "payments/s", "p50", "p99", "max",
		"hearth[+pg] µs/pay", "nodes µs/pay", "cancel delay p50 / p99 / max", "drained")
	var emb, onNode []float64
	var external []nodeRow
	for _, r := range rows {
		if r.peer != "" {
			external = append(external, r)
			continue
		}
		window, drained := "-", "-"
		if len(r.windows) > 0 {
			window = fmt.Sprintf("%s / %s / %s", stats.Round(stats.Percentile(r.windows, 50)), stats.Round(stats.Percentile(r.windows, 99)),
				stats.Round(stats.Percentile(r.windows, 100)))
			drained = stats.Round(r.drained).String()
		}
		if r.unconfirmed > 0 {
			drained += fmt.Sprintf(" (%d NEVER CANCELLED)", r.unconfirmed)
		}
		fmt.Fprintf(w, "%-9s %-18s %9d %11.0f %9s %9s %9s %18s %13s   %-28s %s\n", r.node, r.Name, len(r.Latencies), r.Rate(),
			stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)), stats.Round(r.Percentile(100)), r.CPU.PerPayment(len(r.Latencies), r.PGCPU),
			r.nodesPerPayment(), window, drained)
		if !r.FixedRate {
			if r.node == "embedded" {
				emb = append(emb, r.Rate())
			} else {
				onNode = append(onNode, r.Rate())
			}
		}
	}
	var shares []string
	for i := range min(len(emb), len(onNode)) {
		shares = append(shares, fmt.Sprintf("%.0f%%", 100*onNode[i]/emb[i]))
	}
	slices.Sort(emb)
	slices.Sort(onNode)
	if len(emb) > 0 && len(onNode) > 0 {
		fmt.Fprintf(w, "%s: %s's payments/s of the embedded node's, round by round: %s; median against median: %.0f%%\n",
			db, title, strings.Join(shares, ", "), 100*onNode[len(onNode)/2]/emb[len(emb)/2])
	}
	if len(external) == 0 {
		return
	}
	fmt.Fprintf(w, "%s, external payments of 1 sat on %s, each through the channel to the outside peer\n", db, title)
	fmt.Fprintf(w, "%-9s %-24s %9s %11s %9s %9s %9s %12s   %s\n", "node", "run", "payments", "payments/s", "p50", "p99", "max",
		"fee msat/pay", "cpu µs/pay above idle: hearth[+pg]+nodes")
	for _, r := range external {
		paid := len(r.Latencies) + r.clients*extWarm
		fmt.Fprintf(w, "%-9s %-24s %9d %11.1f %9s %9s %9s %12.1f   %s+%s\n", r.node, r.Name, len(r.Latencies), r.Rate(),
			stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)), stats.Round(r.Percentile(100)), float64(r.feesMsat)/float64(paid),
			r.CPU.PerPayment(len(r.Latencies), r.PGCPU), r.nodesPerPayment())
	}
}

// nodesPerPayment formats the network's processor time per payment, in
// µs ("-" when none was measured).
func (r nodeRow) nodesPerPayment() string {
	if r.nodeCPUPaid == 0 {
		return "-"
	}
	return strconv.FormatInt(r.nodeCPU.Microseconds()/int64(r.nodeCPUPaid), 10)
}
