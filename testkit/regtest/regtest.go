// Package regtest runs a real Lightning network on a local regtest chain
// for Hearth's tests, benchmarks and `make devnet`: one btcd and two lnd
// nodes — Hearth's node and an outside peer — on free loopback ports in a
// temporary folder, with a funded channel from Hearth's node to the peer
// (half of it pushed to the peer, so both can pay) that is routable both
// ways.
//
// The binaries come from scripts/regtest-build.sh, which builds them from
// the Go module proxy at the versions pinned in tools/regtest/go.mod; see
// Binaries for how they are found.
package regtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Channel sizes of the network's one channel.
const (
	// ChannelSat is the channel's capacity.
	ChannelSat = 10_000_000
	// PushSat is what Hearth's node pushes to the peer when opening it.
	PushSat = 4_000_000
)

// Network is a running regtest network.
type Network struct {
	// Dir holds every process's data and logs.
	Dir string
	// Btcd is the chain.
	Btcd *Btcd
	// Hearth is the lnd node Hearth drives; Peer is the outside world.
	Hearth, Peer *Node

	bin   string
	log   io.Writer
	miner *miner // pays FundAddress from its coinbases
}

// Options tune Start.
type Options struct {
	// Dir, when set, is used instead of a new temporary folder (and kept).
	Dir string
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Start brings a network up: btcd, both lnd nodes, mining past segwit
// activation to Hearth's node, a channel with a push amount, and waits
// until payments route both ways. On error everything started is stopped.
func Start(ctx context.Context, o Options) (_ *Network, err error) {
	bin, err := Binaries()
	if err != nil {
		return nil, err
	}
	dir := o.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "hearth-regtest-"); err != nil {
			return nil, err
		}
	}
	n := &Network{Dir: dir, bin: bin, log: o.Log}
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
	// btcd mines to one fixed address, a key of the harness; lnd starts
	// only once its chain backend has recent blocks. Segwit activates at
	// height 432 on btcd's regtest; coinbases mature after 100 blocks.
	miner, err := newMiner()
	if err != nil {
		return n, err
	}
	n.miner = miner
	if n.Btcd, err = startBtcd(ctx, bin, filepath.Join(dir, "btcd"), miner.address); err != nil {
		return n, err
	}
	if _, err := n.Btcd.generate(ctx, 500); err != nil {
		return n, err
	}
	n.logf("btcd up, 500 blocks mined")
	if n.Hearth, err = newNode(ctx, bin, "hearth", dir, n.Btcd.lndArgs()); err != nil {
		return n, err
	}
	if n.Peer, err = newNode(ctx, bin, "peer", dir, n.Btcd.lndArgs()); err != nil {
		return n, err
	}
	n.logf("lnd nodes up")
	if err := n.fund(ctx, miner); err != nil {
		return n, err
	}
	n.logf("lnd nodes funded")
	if err := n.Hearth.openChannel(ctx, n.Peer, ChannelSat, PushSat); err != nil {
		return n, err
	}
	if err := n.Mine(ctx, 6); err != nil {
		return n, err
	}
	if err := n.WaitRoutable(ctx); err != nil {
		return n, err
	}
	n.logf("channel open and routable; network up in %s (%s)", time.Since(began).Round(time.Millisecond), dir)
	return n, nil
}

// Mine mines blocks and waits until both nodes have seen them.
func (n *Network) Mine(ctx context.Context, blocks int) error {
	height, err := n.Btcd.generate(ctx, blocks)
	if err != nil {
		return err
	}
	for _, node := range []*Node{n.Hearth, n.Peer} {
		if err := node.waitHeight(ctx, height); err != nil {
			return err
		}
	}
	return nil
}

// WaitRoutable waits until the channel is active and routes a payment
// each way (an active channel is payable only once QueryRoutes succeeds).
func (n *Network) WaitRoutable(ctx context.Context) error {
	if err := n.Hearth.waitRoute(ctx, n.Peer); err != nil {
		return err
	}
	return n.Peer.waitRoute(ctx, n.Hearth)
}

// Close stops every process, lnd before btcd. It keeps Dir.
func (n *Network) Close() {
	for _, node := range []*Node{n.Peer, n.Hearth} {
		if node != nil {
			node.Stop()
		}
	}
	if n.Btcd != nil {
		n.Btcd.stop()
	}
}

// Remove closes the network and deletes its folder.
func (n *Network) Remove() {
	n.Close()
	os.RemoveAll(n.Dir)
}

func (n *Network) logf(format string, args ...any) {
	fmt.Fprintf(n.log, "regtest: "+format+"\n", args...)
}

// logTails returns the end of every process's log, for an error message.
func (n *Network) logTails() string {
	var b strings.Builder
	for _, p := range []*process{n.btcdProc(), n.Hearth.proc(), n.Peer.proc()} {
		if p != nil {
			fmt.Fprintf(&b, "\n--- %s log (%s) ---\n%s", p.name, p.logPath, tail(p.logPath, 25))
		}
	}
	return b.String()
}

func (n *Network) btcdProc() *process {
	if n.Btcd == nil {
		return nil
	}
	return n.Btcd.proc
}

func tail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}

// poll calls check until it returns nil, every interval, until ctx ends or
// timeout passes; the last error explains a timeout.
func poll(ctx context.Context, timeout time.Duration, what string, check func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	interval := 50 * time.Millisecond
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last: %v)", what, ctx.Err(), err)
		case <-time.After(interval):
		}
		interval = min(interval*2, 500*time.Millisecond)
	}
}

// ErrNoBinaries says the regtest binaries are not built.
var ErrNoBinaries = errors.New("regtest binaries not found")
