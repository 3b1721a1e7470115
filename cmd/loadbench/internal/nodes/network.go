package nodes

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/plugins/node/lnd"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// realNet is a regtest network whose node Hearth runs on beside the
// embedded node: LND's (regtest.Start) or Core Lightning's
// (regtest.StartCLN).
type realNet struct {
	kind  string // the node.backend: "lnd" or "cln"
	title string // for people: "LND", "Core Lightning"
	dir   string // the network's folder, which its processes name
	// backend makes a Hearth backend on the network's Hearth node.
	backend func() (ledger.Node, error)
	// peers are the outside nodes Hearth's node has a channel with, which
	// the external phase pays.
	peers []outsidePeer
	// remove stops the network and deletes its folder (nothing for a
	// network that a test shares).
	remove func()
}

// outsidePeer is an outside node of a network: it issues the invoices
// that Hearth pays in the external phase.
type outsidePeer struct {
	name    string // "lnd", "lightningd"
	invoice func(ctx context.Context, amountMsat int64) (bolt11 string, err error)
}

// nodeKinds are the real nodes loadbench compares with the embedded node.
var nodeKinds = []string{"lnd", "cln"}

// startNet starts the regtest network of kind.
func startNet(ctx context.Context, kind string) (*realNet, error) {
	switch kind {
	case "lnd":
		net, err := regtest.Start(ctx, regtest.Options{})
		if err != nil {
			return nil, err
		}
		r := lndNet(net)
		r.remove = net.Remove
		return r, nil
	case "cln":
		net, err := regtest.StartCLN(ctx, regtest.Options{})
		if err != nil {
			return nil, err
		}
		r := clnNet(net)
		r.remove = net.Remove
		return r, nil
	}
	return nil, fmt.Errorf("unknown node %q (%s)", kind, strings.Join(nodeKinds, " or "))
}

// lndNet is Hearth on the lnd network's Hearth node, paying its outside
// lnd.
func lndNet(net *regtest.Network) *realNet {
	return &realNet{
		kind: "lnd", title: "LND", dir: net.Dir, remove: func() {},
		backend: func() (ledger.Node, error) {
			return lnd.New(lnd.Config{Address: net.Hearth.RPCAddress, TLSCert: net.Hearth.TLSCertPath(), Macaroon: net.Hearth.MacaroonPath()})
		},
		peers: []outsidePeer{{name: "lnd", invoice: func(ctx context.Context, amountMsat int64) (string, error) {
			bolt11, _, err := net.Peer.AddInvoice(ctx, amountMsat, "loadbench")
			return bolt11, err
		}}},
	}
}

// clnNet is Hearth on the Core Lightning network's Hearth lightningd,
// paying its outside lightningd and its outside lnd.
func clnNet(net *regtest.CLNNetwork) *realNet {
	return &realNet{
		kind: "cln", title: "Core Lightning", dir: net.Dir, remove: func() {},
		backend: func() (ledger.Node, error) {
			return cln.New(cln.Config{RPCFile: net.Hearth.RPCPath(), GuardPlugin: net.GuardPlugin})
		},
		peers: []outsidePeer{
			{name: "lightningd", invoice: func(ctx context.Context, amountMsat int64) (string, error) {
				bolt11, _, err := net.Peer.Invoice(ctx, amountMsat, nextLabel(), "loadbench")
				return bolt11, err
			}},
			{name: "lnd", invoice: func(ctx context.Context, amountMsat int64) (string, error) {
				bolt11, _, err := net.LND.AddInvoice(ctx, amountMsat, "loadbench")
				return bolt11, err
			}},
		},
	}
}

// cpu is the processor time the network's processes have spent so far:
// those whose command line names its folder (the chain, the nodes), their
// descendants (lightningd's subdaemons and plugins), and the children they
// reaped. Other work on the machine (another network, say) is not
// counted. It is 0 without /proc.
func (n *realNet) cpu() time.Duration {
	type proc struct {
		parent int
		spent  time.Duration
	}
	procs := map[int]proc{}
	ours := map[int]bool{}
	for pid, f := range machine.Processes() {
		parent, _ := strconv.Atoi(f[1])
		procs[pid] = proc{parent: parent, spent: machine.Ticks(f, 11, 12, 13, 14)}
		if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && bytes.Contains(cmd, []byte(n.dir)) {
			ours[pid] = true
		}
	}
	var sum time.Duration
	for pid, p := range procs {
		for up, depth := pid, 0; up > 1 && depth < 16; up, depth = procs[up].parent, depth+1 {
			if ours[up] {
				sum += p.spent
				break
			}
		}
	}
	return sum
}

var labelSeq atomic.Int64

// nextLabel is a label no other invoice of the outside lightningd has:
// the network may outlive one run (a test's shared network).
func nextLabel() string {
	return fmt.Sprintf("loadbench-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), labelSeq.Add(1))
}

// idleRates are the processor time spent per second of wall time while
// no payment is made: by the network's processes (the nodes polling the
// chain, gossip), this process (the applications' background work) and
// the PostgreSQL server (other databases of it too). What a payment costs
// is what is spent above them.
type idleRates struct{ nodes, self, pg float64 }

// measureIdle measures the idle rates over d, with meter reading this
// process and PostgreSQL.
func measureIdle(ctx context.Context, net *realNet, meter machine.Meter, d time.Duration) (idleRates, error) {
	n0, c0, t0 := net.cpu(), meter.Read(), time.Now()
	select {
	case <-ctx.Done():
		return idleRates{}, ctx.Err()
	case <-time.After(d):
	}
	n1, c1, span := net.cpu(), meter.Read(), float64(time.Since(t0))
	return idleRates{nodes: float64(n1-n0) / span, self: float64(c1.Self-c0.Self) / span, pg: float64(c1.PG-c0.PG) / span}, nil
}

// busyCPU is the network's processor time above its idle rate over span,
// since at (a reading of cpu).
func (n *realNet) busyCPU(at, span time.Duration, idle idleRates) time.Duration {
	return max(n.cpu()-at-time.Duration(idle.nodes*float64(span)), 0)
}

// busy takes the idle rates over the result's measured span off its
// processor time.
func (idle idleRates) busy(r load.Result) load.Result {
	span := float64(r.Elapsed)
	r.CPU.Self = max(r.CPU.Self-time.Duration(idle.self*span), 0)
	r.CPU.PG = max(r.CPU.PG-time.Duration(idle.pg*span), 0)
	return r
}
