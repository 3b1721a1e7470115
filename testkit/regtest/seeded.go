package regtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// seededPassword unlocks a seeded node's wallet (its file lets lnd unlock
// it by itself at a restart).
const seededPassword = "hearth-regtest"

// StartSeeded starts one more lnd on the network's chain, in a folder of
// its own under the network's, whose wallet is made from an aezeed seed:
// a new one when mnemonic is nil, else mnemonic's — a node restored from
// its seed, with no channel, as after a lost disk. It returns the node
// and its seed's words. The network's nodes are started with
// --noseedbackup, so no other node can be restored so.
func (n *Network) StartSeeded(ctx context.Context, name string, mnemonic []string) (*Node, []string, error) {
	node, err := newSeededNode(n.bin, name, n.Dir, n.Btcd.lndArgs())
	if err != nil {
		return nil, nil, err
	}
	p := &process{name: "lnd " + name, path: filepath.Join(n.bin, "lnd"), args: node.args, logPath: filepath.Join(node.Dir, "lnd.log")}
	node.mu.Lock()
	node.p = p
	node.mu.Unlock()
	if err := p.start(); err != nil {
		return nil, nil, err
	}
	words, err := node.initWallet(ctx, mnemonic)
	if err != nil {
		node.Stop()
		return nil, nil, fmt.Errorf("lnd %s: %w\n%s", name, err, tail(p.logPath, 25))
	}
	if err := node.waitReady(ctx, p); err != nil {
		node.Stop()
		return nil, nil, fmt.Errorf("lnd %s: %w\n%s", name, err, tail(p.logPath, 25))
	}
	return node, words, nil
}

// newSeededNode prepares a node whose wallet a seed makes (no
// --noseedbackup), unlocked from a password file at each start.
func newSeededNode(bin, name, root string, chainArgs []string) (*Node, error) {
	rpc, err := freePort()
	if err != nil {
		return nil, err
	}
	p2p, err := freePort()
	if err != nil {
		return nil, err
	}
	n := &Node{Name: name, Dir: filepath.Join(root, name), bin: bin,
		RPCAddress: "127.0.0.1:" + strconv.Itoa(rpc), P2PAddress: "127.0.0.1:" + strconv.Itoa(p2p)}
	if err := os.MkdirAll(n.Dir, 0o700); err != nil {
		return nil, err
	}
	pw := filepath.Join(n.Dir, "wallet.password")
	if err := os.WriteFile(pw, []byte(seededPassword), 0o600); err != nil {
		return nil, err
	}
	n.args = append([]string{
		"--lnddir=" + n.Dir,
		"--wallet-unlock-password-file=" + pw,
		"--wallet-unlock-allow-create",
		"--bitcoin.regtest",
		"--rpclisten=" + n.RPCAddress,
		"--listen=" + n.P2PAddress,
		"--norest",
		"--nobootstrap",
		"--alias=" + name,
		"--debuglevel=info",
		"--trickledelay=50",
	}, chainArgs...)
	return n, nil
}

// initWallet creates the wallet through lnd's WalletUnlocker, from a new
// seed or from mnemonic, and returns the seed's words.
func (n *Node) initWallet(ctx context.Context, mnemonic []string) ([]string, error) {
	var conn *grpc.ClientConn
	err := poll(ctx, 60*time.Second, "lnd "+n.Name+"'s wallet unlocker", func(context.Context) error {
		creds, err := credentials.NewClientTLSFromFile(n.TLSCertPath(), "")
		if err != nil {
			return err
		}
		conn, err = grpc.NewClient(n.RPCAddress, grpc.WithTransportCredentials(creds))
		return err
	})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	unlocker := lnrpc.NewWalletUnlockerClient(conn)
	req := &lnrpc.InitWalletRequest{WalletPassword: []byte(seededPassword), CipherSeedMnemonic: mnemonic}
	if mnemonic != nil {
		req.RecoveryWindow = 100 // a restored node looks for its earlier addresses
	}
	err = poll(ctx, 60*time.Second, "lnd "+n.Name+"'s wallet made", func(ctx context.Context) error {
		if req.CipherSeedMnemonic == nil {
			seed, err := unlocker.GenSeed(ctx, &lnrpc.GenSeedRequest{})
			if err != nil {
				return err
			}
			req.CipherSeedMnemonic = seed.CipherSeedMnemonic
		}
		_, err := unlocker.InitWallet(ctx, req)
		return err
	})
	return req.CipherSeedMnemonic, err
}

// waitReady waits until the started node answers and is synced.
func (n *Node) waitReady(ctx context.Context, p *process) error {
	return poll(ctx, 60*time.Second, "lnd "+n.Name+" to answer", func(ctx context.Context) error {
		if err := p.exited(); err != nil {
			return err
		}
		if err := n.dial(); err != nil {
			return err
		}
		info, err := n.ln.GetInfo(ctx, &lnrpc.GetInfoRequest{})
		if err != nil {
			return err
		}
		if !info.SyncedToChain {
			return errors.New("not synced to chain")
		}
		n.Pubkey = info.IdentityPubkey
		return nil
	})
}

// OpenChannel connects to peer and opens a channel of sat, pushing
// pushSat to it; the funding transaction is in the mempool.
func (n *Node) OpenChannel(ctx context.Context, peer *Node, sat, pushSat int64) error {
	return n.openChannel(ctx, peer, sat, pushSat)
}

// WaitingClose lists the channel points of the node's channels waiting
// to close: after a restore from a channel backup, the channels it
// restored, until their peers close them.
func (n *Node) WaitingClose(ctx context.Context) ([]string, error) {
	res, err := n.ln.PendingChannels(ctx, &lnrpc.PendingChannelsRequest{})
	if err != nil {
		return nil, fmt.Errorf("%s pending channels: %w", n.Name, err)
	}
	var points []string
	for _, c := range res.WaitingCloseChannels {
		points = append(points, c.Channel.ChannelPoint)
	}
	return points, nil
}

// ChannelPoints lists the channel points of the node's open and pending
// channels.
func (n *Node) ChannelPoints(ctx context.Context) ([]string, error) {
	open, err := n.ln.ListChannels(ctx, &lnrpc.ListChannelsRequest{})
	if err != nil {
		return nil, fmt.Errorf("%s list channels: %w", n.Name, err)
	}
	var points []string
	for _, c := range open.Channels {
		points = append(points, c.ChannelPoint)
	}
	pending, err := n.ln.PendingChannels(ctx, &lnrpc.PendingChannelsRequest{})
	if err != nil {
		return nil, fmt.Errorf("%s pending channels: %w", n.Name, err)
	}
	for _, c := range pending.PendingOpenChannels {
		points = append(points, c.Channel.ChannelPoint)
	}
	return points, nil
}
