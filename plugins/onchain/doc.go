// Package onchain is the built-in plugin of the on-chain wallet: deposit
// addresses of each wallet, and deposits to them credited once they are
// confirmed, through the on-chain half of the node (ledger.ChainWallet:
// lnd today, cln later; the embedded node has none, and every route then
// answers 422 "the on-chain wallet needs an lnd or cln node").
//
// POST /v1/me/bitcoin/address answers the wallet's oldest unused address
// of the type asked (default bitcoin_address_type), or a new one from the
// node; an address is used once a transaction paying it is seen, and the
// next call then makes a new one. A deleted address is neither shown nor
// handed out again, but a deposit that still arrives to it is credited.
//
// Every output to a deposit address is recorded once per outpoint as an
// Onchain invoice of its wallet (ledger.Deposit), Pending with its
// bitcoin_output while it is not deep enough, and credited exactly once
// when it has Config.MinConfirmations. On one replica at a time the plugin
// follows the node's stream of wallet transactions and blocks; at every
// start and after every reconnect it first syncs from its cursor in the
// database rewound by Config.ReorgBuffer blocks (and down to the oldest
// deposit not credited yet), so a deposit confirmed while Hearth was down
// is credited at start. Sync runs on demand too (POST /v1/bitcoin/sync),
// on any replica: the ledger's single-winner updates make every replay
// harmless.
//
// It is also a payment-input resolver (pay.go): POST /v1/me/payments with
// a bare address of the node's network or a BIP21 URI (a lightning=
// invoice wins) pays on-chain through the ledger's spends
// (core/ledger/spend.go: prepare at the node, reserve amount + the exact
// fee, publish; Settled at the first confirmation, which the sync sees);
// another wallet's deposit address is paid inside the instance, one's own
// refused.
//
// The plugin's tables (migration 20261123000072_onchain) are its own; the
// deposits' invoices and the spends' payments are the ledger's.
package onchain
