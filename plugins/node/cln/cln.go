// Package cln is Hearth's Core Lightning backend: it drives a lightningd
// (v24.11 or newer: xpay, wait) over its JSON-RPC unix socket, with
// glightning's jrpc2 framing and request/answer types of its own for the
// current methods (methods.go), and speaks to the ledger in wallet terms
// only.
//
// Invoices are made with invoice (deschashonly for a description hash)
// under the label "hearth:<payment hash>" and withdrawn with delinvoice;
// payments go out with xpay and are looked up with listpays; settled
// invoices and finished payments are followed with wait on the invoices
// and sendpays subsystems. Every call has its own connection, so a node
// that restarts costs the calls in progress and nothing else; the ledger
// resubscribes and reconciles (ledger.Service.Run).
package cln

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/btcsuite/btcd/chaincfg"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Node is the Core Lightning backend.
type Node struct {
	path   string
	guard  string // Config.Guard
	plugin string // Config.GuardPlugin
	spends spends

	mu     sync.Mutex
	pubkey string           // the node's id, once known
	net    *chaincfg.Params // the node's chain, once known
}

// networks maps the network names lightningd reports to chain parameters.
var networks = map[string]*chaincfg.Params{
	"bitcoin": &chaincfg.MainNetParams,
	"testnet": &chaincfg.TestNet3Params,
	"signet":  &chaincfg.SigNetParams,
	"regtest": &chaincfg.RegressionNetParams,
}

// New prepares the backend. It does not wait for the node: calls fail
// (and the health check reports it) until the socket answers.
func New(cfg Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	guard := cfg.Guard
	if guard == "" {
		guard = GuardAuto
	}
	return &Node{path: cfg.RPCFile, guard: guard, plugin: cfg.GuardPlugin}, nil
}

// Close has nothing to close: every call has its own connection.
func (n *Node) Close() error { return nil }

// Ping checks that the node answers and is synced to the chain; it is the
// ln_provider health check.
func (n *Node) Ping(ctx context.Context) error {
	info, err := n.getinfo(ctx)
	if err != nil {
		return err
	}
	if info.WarningBitcoindSync != "" || info.WarningLightningd != "" {
		return errors.New("cln is not synced to the chain")
	}
	return nil
}

// Info describes the node and its balances (getinfo and listfunds).
func (n *Node) Info(ctx context.Context) (ledger.NodeInfo, error) {
	info, err := n.getinfo(ctx)
	if err != nil {
		return ledger.NodeInfo{}, err
	}
	out := ledger.NodeInfo{
		Backend:          "cln",
		Alias:            info.Alias,
		Pubkey:           info.ID,
		Network:          networkName(info.Network),
		BlockHeight:      info.Blockheight,
		Channels:         info.NumActiveChannels,
		ExternalPayments: true,
	}
	var funds listfundsResponse
	if err := n.call(ctx, listfundsRequest{}, &funds); err != nil {
		return ledger.NodeInfo{}, err
	}
	for _, c := range funds.Channels {
		if c.State == "CHANNELD_NORMAL" {
			out.LocalMsat += c.OurAmountMsat
			out.RemoteMsat += c.AmountMsat - c.OurAmountMsat
		}
	}
	for _, o := range funds.Outputs {
		if o.Status == "confirmed" {
			out.OnchainSat += o.AmountMsat / 1000
		}
	}
	return out, nil
}

// ExternalPayments is true: lightningd pays over its channels.
func (n *Node) ExternalPayments() bool { return true }

// getinfo asks the node who it is, and remembers its id and network.
func (n *Node) getinfo(ctx context.Context) (*getinfoResponse, error) {
	var info getinfoResponse
	if err := n.call(ctx, getinfoRequest{}, &info); err != nil {
		return nil, err
	}
	params, ok := networks[info.Network]
	if !ok {
		return nil, fmt.Errorf("cln reports unknown network %q", info.Network)
	}
	n.mu.Lock()
	n.pubkey, n.net = info.ID, params
	n.mu.Unlock()
	return &info, nil
}

// identity returns the node's id and chain, asking the node the first time.
func (n *Node) identity(ctx context.Context) (string, *chaincfg.Params, error) {
	n.mu.Lock()
	pubkey, params := n.pubkey, n.net
	n.mu.Unlock()
	if params != nil {
		return pubkey, params, nil
	}
	info, err := n.getinfo(ctx)
	if err != nil {
		return "", nil, err
	}
	return info.ID, networks[info.Network], nil
}

// networkName is the network's name as the API gives it.
func networkName(cln string) string {
	if cln == "bitcoin" {
		return "mainnet"
	}
	return cln
}

var (
	_ ledger.Node              = (*Node)(nil)
	_ ledger.ExternalPayer     = (*Node)(nil)
	_ ledger.PaymentSubscriber = (*Node)(nil)
	_ ledger.FeeEstimator      = (*Node)(nil)
	_ ledger.InvoiceResumer    = (*Node)(nil)
)
