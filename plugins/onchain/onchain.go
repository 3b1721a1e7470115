package onchain

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/btcsuite/btcd/chaincfg"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
)

// Config tunes the on-chain wallet. The zero value takes every default.
type Config struct {
	// DefaultType is the type of a deposit address asked for without one
	// (bitcoin_address_type). Default p2wpkh.
	DefaultType ledger.AddressType
	// MinConfirmations is how deep a deposit's transaction must be for the
	// wallet to be credited (onchain.min_confirmations). Default 1.
	MinConfirmations int64
	// ReorgBuffer is how many blocks below its cursor a sync reads again
	// at every start and reconnect (onchain.reorg_buffer). Default 6.
	ReorgBuffer int64
	// TargetConf is the confirmation target, in blocks, of the fee of a
	// spend (onchain.target_conf). Default 6.
	TargetConf int32
	// RetryMax caps the wait between attempts to reach the node's stream
	// after it broke (it starts at a second and doubles). Default 1m.
	RetryMax time.Duration
}

func (c *Config) defaults() {
	if c.DefaultType == "" {
		c.DefaultType = ledger.P2WPKH
	}
	if c.MinConfirmations <= 0 {
		c.MinConfirmations = 1
	}
	if c.ReorgBuffer <= 0 {
		c.ReorgBuffer = 6
	}
	if c.TargetConf <= 0 {
		c.TargetConf = 6
	}
	if c.RetryMax <= 0 {
		c.RetryMax = time.Minute
	}
}

// Ledger is what the plugin needs of the ledger, in wallet terms: the
// host API bound to it (host.Caller), which checks each call against its
// capabilities (ledger:deposit, wallet:receive-any).
type Ledger interface {
	// Deposit records an output to a deposit address once per outpoint,
	// and credits it once when credit is set.
	Deposit(ctx context.Context, walletID string, out ledger.BitcoinOutput, credit bool) (*ledger.Deposit, error)
	// PendingDeposits lists the deposits not credited yet.
	PendingDeposits(ctx context.Context) ([]ledger.Invoice, error)
	// ReconcileSpends settles the on-chain payments confirmed in listed
	// (or at the node), and fails those the node never got.
	ReconcileSpends(ctx context.Context, listed []ledger.ChainTx, lookup bool) error
	// Receive makes an invoice of a wallet: a payment to its deposit
	// address from another wallet of the instance is settled through it.
	Receive(ctx context.Context, walletID string, req ledger.NewInvoice) (*ledger.Invoice, error)
}

// Deps build the plugin.
type Deps struct {
	// DB holds the plugin's own tables.
	DB     *store.DB
	Ledger Ledger
	// Chain is the node's on-chain wallet; nil when the node has none
	// (the embedded node): every route then answers ledger.ErrNoOnchain.
	Chain Chain
	// NodeInfo tells the network of addresses; nil refuses addresses as
	// payment input.
	NodeInfo func(ctx context.Context) (ledger.NodeInfo, error)
	// Decoder decodes a BIP21 URI's lightning= invoice; nil takes its
	// amount from the URI.
	Decoder Decoder
	// WalletExists checks the wallet_id of an admin's address; nil
	// accepts any.
	WalletExists func(ctx context.Context, id string) error
	Config       Config
	Log          *slog.Logger
}

// Chain is the node's on-chain wallet as the plugin reads it (host.Chain).
type Chain interface {
	ledger.ChainWallet
	// Spends reports whether the node spends on chain for the ledger:
	// then there are spends to reconcile.
	Spends() bool
}

// Decoder decodes BOLT11 invoices.
type Decoder interface {
	Decode(bolt11 string) (*ledger.DecodedInvoice, error)
}

// Plugin is the on-chain wallet plugin.
type Plugin struct {
	db     *store.DB
	led    Ledger
	chain  Chain
	info   func(ctx context.Context) (ledger.NodeInfo, error)
	decode Decoder
	exists func(ctx context.Context, id string) error
	cfg    Config
	log    *slog.Logger
	synced func(height int64) // tests: called after every sync pass
	mu     sync.Mutex         // one sync pass at a time in this process

	netMu sync.Mutex
	net   *chaincfg.Params // the node's chain, once known
}

// New returns the plugin.
func New(d Deps) *Plugin {
	d.Config.defaults()
	if d.Log == nil {
		d.Log = slog.Default()
	}
	return &Plugin{db: d.DB, led: d.Ledger, chain: d.Chain, info: d.NodeInfo, decode: d.Decoder, exists: d.WalletExists, cfg: d.Config,
		log: d.Log.With("plugin", Name)}
}

// Bind gives the plugin the host API bound to it (after the registry took
// its manifest): its ledger from then on.
func (p *Plugin) Bind(l Ledger) { p.led = l }

// Name is the plugin's name.
const Name = "onchain"

// Manifest describes the plugin.
func Manifest() *host.Manifest {
	return &host.Manifest{Name: Name, Version: "1.0.0", ABI: host.ABIVersion,
		Description: "The on-chain wallet: deposit addresses, deposits credited at their confirmations, sync with the node.",
		Scopes: []string{auth.WriteTransaction.String(), host.ReceiveAny, host.LedgerDeposit, host.LedgerResolver, host.ServeAPI,
			host.NodeChain, host.NodeInfo}}
}

// Builtin returns the plugin as the registry takes it. Its lead follows
// the chain; it reads no outbox events.
func (p *Plugin) Builtin() host.Builtin {
	return host.Builtin{Manifest: Manifest(), Routes: p.routes(),
		Lead: func(ctx context.Context, _ *host.Events) { p.Follow(ctx) }}
}

// Follow keeps the wallets' deposits in step with the chain until ctx
// ends: it subscribes to the node's stream, syncs from the cursor rewound
// by the reorg buffer, then applies the stream (a transaction at once, a
// block by a sync); when the stream breaks it does it all again, after a
// backoff. The embedded node has no chain: Follow then waits for ctx.
func (p *Plugin) Follow(ctx context.Context) {
	if p.chain == nil {
		<-ctx.Done()
		return
	}
	p.log.InfoContext(ctx, "onchain: this replica follows the chain")
	wait := time.Second
	for ctx.Err() == nil {
		if p.followOnce(ctx) {
			wait = time.Second
		}
		if ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, p.cfg.RetryMax)
	}
}

// followOnce subscribes, syncs and applies the stream until it breaks;
// true when it got as far as the stream.
func (p *Plugin) followOnce(ctx context.Context) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := p.chain.SubscribeChain(ctx)
	if errors.Is(err, ledger.ErrNoOnchain) {
		<-ctx.Done() // nothing to follow
		return false
	}
	if err != nil {
		p.log.WarnContext(ctx, "onchain: subscribing to the chain", "err", err)
		return false
	}
	if _, err := p.Sync(ctx); err != nil {
		p.log.WarnContext(ctx, "onchain: syncing", "err", err)
		return false
	}
	for ev := range events {
		var err error
		switch {
		case ev.Tx != nil:
			if _, err = p.apply(ctx, []ledger.ChainTx{*ev.Tx}); err == nil {
				err = p.reconcileSpends(ctx, []ledger.ChainTx{*ev.Tx}, false)
			}
		default:
			_, err = p.Sync(ctx)
		}
		if err != nil && ctx.Err() == nil {
			p.log.WarnContext(ctx, "onchain: applying the chain", "err", err)
			return true // resubscribe and sync again
		}
	}
	if ctx.Err() == nil {
		p.log.WarnContext(ctx, "onchain: the node's chain stream ended")
	}
	return true
}
