// Package lnd is Hearth's LND backend: it drives an LND node over gRPC
// (lnrpc, routerrpc and invoicesrpc) with its TLS certificate and a
// macaroon, and speaks to the ledger in wallet terms only — no lnrpc type
// leaves this folder.
//
// The gRPC connection redials on its own, with backoff, when the node goes
// away; the ledger resubscribes to the streams and reconciles its pending
// invoices and payments after every reconnect (ledger.Service.Run).
package lnd

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/btcsuite/btcd/chaincfg"
	"github.com/lightningnetwork/lnd/lnrpc"
	"github.com/lightningnetwork/lnd/lnrpc/invoicesrpc"
	"github.com/lightningnetwork/lnd/lnrpc/routerrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Config says how to reach the node: the [node.lnd] section of the
// configuration (Section), HEARTH_NODE_LND_* in the environment.
type Config struct {
	// Address is the node's gRPC host:port. Default "localhost:10009".
	Address string `toml:"address"`
	// TLSCert is the node's tls.cert: a file path, or the certificate
	// itself as PEM, hex or base64. Required.
	TLSCert string `toml:"tls_cert"`
	// Macaroon authorises Hearth's calls (admin.macaroon, or one baked
	// with invoices, offchain and info permissions): a file path, or the
	// macaroon itself as hex or base64. Required.
	Macaroon string `toml:"macaroon"`
}

// Node is the LND backend.
type Node struct {
	conn     *grpc.ClientConn
	ln       lnrpc.LightningClient
	router   routerrpc.RouterClient
	invoices invoicesrpc.InvoicesClient
	now      func() time.Time

	mu     sync.Mutex
	pubkey string           // the node's identity, once known
	net    *chaincfg.Params // the node's chain, once known
	name   string           // the node's network name
}

// networks maps the network names LND reports to chain parameters.
var networks = map[string]*chaincfg.Params{
	"mainnet": &chaincfg.MainNetParams,
	"testnet": &chaincfg.TestNet3Params,
	"signet":  &chaincfg.SigNetParams,
	"regtest": &chaincfg.RegressionNetParams,
	"simnet":  &chaincfg.SimNetParams,
}

// New prepares a connection to the node. It does not wait for the node:
// calls fail (and the health check reports it) until the node answers, and
// the connection comes back by itself after the node restarts.
func New(cfg Config) (*Node, error) {
	creds, err := transportCredentials(cfg.TLSCert)
	if err != nil {
		return nil, fmt.Errorf("lnd tls_cert: %w", err)
	}
	mac, err := loadMacaroon(cfg.Macaroon)
	if err != nil {
		return nil, fmt.Errorf("lnd macaroon: %w", err)
	}
	conn, err := grpc.NewClient(cfg.Address,
		grpc.WithTransportCredentials(creds),
		grpc.WithPerRPCCredentials(macaroonCredential(hex.EncodeToString(mac))),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 250 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 10 * time.Second},
			MinConnectTimeout: 5 * time.Second,
		}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)),
	)
	if err != nil {
		return nil, fmt.Errorf("lnd at %s: %w", cfg.Address, err)
	}
	return &Node{
		conn:     conn,
		ln:       lnrpc.NewLightningClient(conn),
		router:   routerrpc.NewRouterClient(conn),
		invoices: invoicesrpc.NewInvoicesClient(conn),
		now:      time.Now,
	}, nil
}

// Close closes the connection.
func (n *Node) Close() error { return n.conn.Close() }

// Ping checks that the node answers and is synced to the chain; it is the
// ln_provider health check.
func (n *Node) Ping(ctx context.Context) error {
	info, err := n.getInfo(ctx)
	if err != nil {
		return err
	}
	if !info.SyncedToChain {
		return errors.New("lnd is not synced to the chain")
	}
	return nil
}

// Info describes the node and its balances.
func (n *Node) Info(ctx context.Context) (ledger.NodeInfo, error) {
	info, err := n.getInfo(ctx)
	if err != nil {
		return ledger.NodeInfo{}, err
	}
	out := ledger.NodeInfo{
		Backend:          "lnd",
		Alias:            info.Alias,
		Pubkey:           info.IdentityPubkey,
		Network:          networkName(info),
		BlockHeight:      info.BlockHeight,
		BlockHash:        info.BlockHash,
		Channels:         int(info.NumActiveChannels),
		ExternalPayments: true,
	}
	cb, err := n.ln.ChannelBalance(ctx, &lnrpc.ChannelBalanceRequest{})
	if err != nil {
		return ledger.NodeInfo{}, fmt.Errorf("lnd channel balance: %w", err)
	}
	if cb.LocalBalance != nil {
		out.LocalMsat = int64(cb.LocalBalance.Msat)
	}
	if cb.RemoteBalance != nil {
		out.RemoteMsat = int64(cb.RemoteBalance.Msat)
	}
	wb, err := n.ln.WalletBalance(ctx, &lnrpc.WalletBalanceRequest{})
	if err != nil {
		return ledger.NodeInfo{}, fmt.Errorf("lnd wallet balance: %w", err)
	}
	out.OnchainSat = wb.ConfirmedBalance
	return out, nil
}

// ExternalPayments is true: LND pays over its channels.
func (n *Node) ExternalPayments() bool { return true }

// getInfo asks the node who it is, and remembers its key and network.
func (n *Node) getInfo(ctx context.Context) (*lnrpc.GetInfoResponse, error) {
	info, err := n.ln.GetInfo(ctx, &lnrpc.GetInfoRequest{})
	if err != nil {
		return nil, fmt.Errorf("lnd get info: %w", err)
	}
	name := networkName(info)
	params, ok := networks[name]
	if !ok {
		return nil, fmt.Errorf("lnd reports unknown network %q", name)
	}
	n.mu.Lock()
	n.pubkey, n.net, n.name = info.IdentityPubkey, params, name
	n.mu.Unlock()
	return info, nil
}

// identity returns the node's key and chain, asking the node the first time.
func (n *Node) identity(ctx context.Context) (string, *chaincfg.Params, error) {
	n.mu.Lock()
	pubkey, params := n.pubkey, n.net
	n.mu.Unlock()
	if params != nil {
		return pubkey, params, nil
	}
	if _, err := n.getInfo(ctx); err != nil {
		return "", nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.pubkey, n.net, nil
}

func networkName(info *lnrpc.GetInfoResponse) string {
	for _, c := range info.Chains {
		if c.Chain == "bitcoin" || c.Chain == "" {
			if c.Network == "testnet3" {
				return "testnet"
			}
			return c.Network
		}
	}
	return ""
}

var (
	_ ledger.Node              = (*Node)(nil)
	_ ledger.ExternalPayer     = (*Node)(nil)
	_ ledger.PaymentSubscriber = (*Node)(nil)
	_ ledger.FeeEstimator      = (*Node)(nil)
)
