package onchain

import (
	"context"

	"github.com/hearthwallet/hearth/host"
)

// Descriptor is the on-chain wallet as the host builds it ([onchain], with
// the instance's bitcoin_address_type): its routes join the API, and it
// follows the chain on one replica at a time. It reads the node's chain
// wallet (node:chain, never spending: the ledger spends) and the node's
// network (node:info). With a node that has no chain wallet (embedded)
// its routes answer that the on-chain wallet needs an lnd or cln node. It
// resolves bitcoin addresses and BIP21 URIs as payment input. tune, when
// set, adjusts its configuration (tests).
func Descriptor(tune func(*Config)) host.Descriptor {
	return host.Descriptor{Manifest: Manifest(), Section: SectionKey, Defaults: host.Defaults(DefaultSettings()),
		Validate: func(s host.Settings) error { return host.SectionOf(s, DefaultSettings()).Validate() },
		Build: func(ctx context.Context, env *host.Env) (host.Builtin, error) {
			c := ConfigOf(host.SectionOf(env.Settings, DefaultSettings()), env.Settings.BitcoinAddressType)
			if tune != nil {
				tune(&c)
			}
			chain, err := env.Chain()
			if err != nil {
				return host.Builtin{}, err
			}
			info, err := env.NodeInfo()
			if err != nil {
				return host.Builtin{}, err
			}
			d := Deps{DB: env.Tables(), Ledger: env.Host, NodeInfo: info, Decoder: env, WalletExists: env.WalletExists,
				Config: c, Log: env.Log}
			if chain != nil {
				d.Chain = chain // a nil *host.Chain is no nil Chain
			}
			p := New(d)
			if err := env.Host.AddResolver(ctx, p); err != nil {
				return host.Builtin{}, err
			}
			return p.Builtin(), nil
		}}
}
