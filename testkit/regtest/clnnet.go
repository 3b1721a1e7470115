package regtest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/testkit/hearthexe"
)

// CLNNetwork is a regtest network for Hearth on Core Lightning: bitcoind,
// Hearth's lightningd, an outside lightningd, and an outside lnd that
// follows the same bitcoind (by RPC polling). Hearth's node has a channel
// to each peer, half of it pushed to the peer, so that payments cross
// implementations both ways (Core Lightning to lnd, lnd to Core
// Lightning) as well as between two lightningd.
type CLNNetwork struct {
	// Dir holds every process's data and logs.
	Dir string
	// Bitcoind is the chain.
	Bitcoind *Bitcoind
	// Hearth is the lightningd Hearth drives; Peer the outside lightningd.
	Hearth, Peer *CLNNode
	// LND is the outside lnd.
	LND *Node
	// GuardPlugin is a hearth executable built from this source tree, for
	// lightningd to run as the invoice guard of a Hearth that runs inside
	// another program (cln.Config.GuardPlugin).
	GuardPlugin string

	miner string // the address blocks are mined to
	log   io.Writer
}

// StartCLN brings the Core Lightning network up: bitcoind, the three
// nodes, coins for each, both channels, and waits until each routes both
// ways. It needs CLNBinaries and, for the lnd peer, Binaries. On error
// everything started is stopped.
func StartCLN(ctx context.Context, o Options) (_ *CLNNetwork, err error) {
	clnBin, err := CLNBinaries()
	if err != nil {
		return nil, err
	}
	lndBin, err := Binaries()
	if err != nil {
		return nil, err
	}
	dir := o.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "hearth-cln-"); err != nil {
			return nil, err
		}
	}
	n := &CLNNetwork{Dir: dir, log: o.Log}
	if n.log == nil {
		n.log = io.Discard
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w%s", err, n.logTails())
			n.Close()
			if o.Dir == "" {
				os.RemoveAll(dir)
			}
		}
	}()
	began := time.Now()
	built := make(chan error, 1)
	go func() {
		var err error
		n.GuardPlugin, err = hearthexe.Build(ctx, dir)
		built <- err
	}()
	defer func() {
		if e := <-built; err == nil {
			err = e
		}
	}()
	m, err := newMiner()
	if err != nil {
		return n, err
	}
	n.miner = m.address
	if n.Bitcoind, err = startBitcoind(ctx, clnBin, filepath.Join(dir, "bitcoind")); err != nil {
		return n, err
	}
	// lnd starts only once the chain has a recent block.
	if _, err := n.Bitcoind.GenerateTo(ctx, 1, n.miner); err != nil {
		return n, err
	}
	if n.Hearth, err = newCLNNode(ctx, clnBin, "hearth", dir, n.Bitcoind); err != nil {
		return n, err
	}
	if n.Peer, err = newCLNNode(ctx, clnBin, "peer", dir, n.Bitcoind); err != nil {
		return n, err
	}
	if n.LND, err = newNode(ctx, lndBin, "lnd", dir, n.Bitcoind.lndArgs()); err != nil {
		return n, err
	}
	n.logf("bitcoind, two lightningd and lnd up")
	if err := n.fund(ctx); err != nil {
		return n, err
	}
	n.logf("nodes funded")
	// Each channel in a block of its own: lnd drops a lightningd whose
	// gossip lists two channels of one block out of order ("current sid
	// 111:1:0 isn't greater than last sid 111:2:0") and reconnects in a
	// loop, which stalls the channel once lightningd restarts.
	for _, peer := range []struct{ pubkey, addr string }{{n.Peer.Pubkey, n.Peer.P2PAddress}, {n.LND.Pubkey, n.LND.P2PAddress}} {
		if err := n.Hearth.OpenChannel(ctx, peer.pubkey, peer.addr, ChannelSat, PushSat); err != nil {
			return n, err
		}
		if err := n.Mine(ctx, 1); err != nil {
			return n, err
		}
	}
	if err := n.Mine(ctx, 5); err != nil {
		return n, err
	}
	if err := n.WaitRoutable(ctx); err != nil {
		return n, err
	}
	n.logf("channels open and routable; network up in %s (%s)", time.Since(began).Round(time.Millisecond), dir)
	return n, nil
}

// fund mines coinbases to each node (five to Hearth's, two to each peer),
// matures them, and waits until every node can spend.
func (n *CLNNetwork) fund(ctx context.Context) error {
	for _, to := range []struct {
		addr   func(context.Context) (string, error)
		blocks int
	}{{n.Hearth.NewAddress, 5}, {n.Peer.NewAddress, 2}, {n.LND.NewAddress, 2}} {
		addr, err := to.addr(ctx)
		if err != nil {
			return err
		}
		if _, err := n.Bitcoind.GenerateTo(ctx, to.blocks, addr); err != nil {
			return err
		}
	}
	if err := n.Mine(ctx, 100); err != nil {
		return err
	}
	for _, node := range []*CLNNode{n.Hearth, n.Peer} {
		if err := node.waitFunds(ctx); err != nil {
			return err
		}
	}
	return n.LND.waitFunds(ctx)
}

// Mine mines blocks and waits until every node has seen them.
func (n *CLNNetwork) Mine(ctx context.Context, blocks int) error {
	height, err := n.Bitcoind.GenerateTo(ctx, blocks, n.miner)
	if err != nil {
		return err
	}
	return n.WaitHeight(ctx, height)
}

// WaitHeight waits until every node has seen the chain up to height.
func (n *CLNNetwork) WaitHeight(ctx context.Context, height int64) error {
	for _, node := range []*CLNNode{n.Hearth, n.Peer} {
		if err := node.WaitHeight(ctx, height); err != nil {
			return err
		}
	}
	return n.LND.waitHeight(ctx, height)
}

// WaitRoutable waits until Hearth's node pays each peer and each peer
// pays it (a channel is usable some time after it is normal).
func (n *CLNNetwork) WaitRoutable(ctx context.Context) error {
	for _, peer := range []string{n.Peer.Pubkey, n.LND.Pubkey} {
		if err := n.Hearth.waitChannelNormal(ctx, peer); err != nil {
			return err
		}
		if err := n.Hearth.waitRoute(ctx, peer); err != nil {
			return err
		}
	}
	if err := n.Peer.waitRoute(ctx, n.Hearth.Pubkey); err != nil {
		return err
	}
	return n.LND.waitRouteTo(ctx, n.Hearth.Pubkey)
}

// Close stops every process, the nodes before bitcoind. It keeps Dir.
func (n *CLNNetwork) Close() {
	if n.LND != nil {
		n.LND.Stop()
	}
	for _, node := range []*CLNNode{n.Peer, n.Hearth} {
		if node != nil {
			node.Stop()
		}
	}
	n.Bitcoind.stop()
}

// Remove closes the network and deletes its folder.
func (n *CLNNetwork) Remove() {
	n.Close()
	os.RemoveAll(n.Dir)
}

func (n *CLNNetwork) logf(format string, args ...any) {
	fmt.Fprintf(n.log, "regtest cln: "+format+"\n", args...)
}

// logTails returns the end of every process's log, for an error message.
func (n *CLNNetwork) logTails() string {
	var b strings.Builder
	if n.Bitcoind != nil {
		fmt.Fprintf(&b, "\n--- bitcoind (%s) ---\n%s", n.Bitcoind.Dir, tail(filepath.Join(n.Bitcoind.Dir, "regtest", "debug.log"), 15))
	}
	for _, node := range []*CLNNode{n.Hearth, n.Peer} {
		if node != nil {
			fmt.Fprintf(&b, "\n--- lightningd %s (%s) ---\n%s\n%s", node.Name, node.Dir, tail(node.proc().logPath, 10), tail(node.logPath(), 25))
		}
	}
	if p := n.LND.proc(); p != nil {
		fmt.Fprintf(&b, "\n--- %s log (%s) ---\n%s", p.name, p.logPath, tail(p.logPath, 25))
	}
	return b.String()
}
