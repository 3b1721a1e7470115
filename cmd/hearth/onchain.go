package main

import (
	"context"
	"log/slog"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/onchain"
)

// addOnchain registers the built-in on-chain wallet: its routes join the
// API, and it follows the chain on one replica at a time (RunBuiltins).
// With a node that has no on-chain wallet (embedded) its routes answer
// that the on-chain wallet needs an lnd or cln node. It resolves bitcoin
// addresses and BIP21 URIs as payment input.
func addOnchain(cfg config.Config, db *store.DB, reg *host.Registry, led *ledger.Service, log *slog.Logger) (*onchain.Plugin, error) {
	wallets := wallet.NewService(db)
	var chain ledger.ChainWallet
	if cfg.Node.Backend != "embedded" {
		chain = ledger.OnchainOf(led.Node())
	}
	p := onchain.New(onchain.Deps{
		DB:     db,
		Ledger: led,
		Chain:  chain,
		Node:   led.Node(),
		WalletExists: func(ctx context.Context, id string) error {
			_, err := wallets.Get(ctx, id)
			return err
		},
		Config: onchain.Config{
			DefaultType:      ledger.AddressType(cfg.BitcoinAddressType),
			MinConfirmations: cfg.Onchain.MinConfirmations,
			ReorgBuffer:      cfg.Onchain.ReorgBuffer,
			TargetConf:       int32(cfg.Onchain.TargetConf),
		},
		Log: log,
	})
	if _, err := reg.AddBuiltin(p.Builtin()); err != nil {
		return nil, err
	}
	// A bitcoin address or BIP21 URI as payment input.
	led.AddResolver(p)
	return p, nil
}
