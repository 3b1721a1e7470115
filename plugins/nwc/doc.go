// Package nwc is the built-in Nostr Wallet Connect plugin (NIP-47): apps
// (Damus, Amethyst, Primal, Alby's tools) pay, make invoices and read a
// wallet over Nostr relays, through a connection the wallet's owner makes
// once and can revoke at any time.
//
// A connection is a delegation of the host (host.Caller.Delegate): an API
// key the plugin holds for the user, with the permissions the connection's
// methods imply (never beyond the user's), an optional budget and an
// expiry. The plugin acts with it through the host API (Caller.ActAs), so
// the ledger counts every payment against the connection's budget exactly
// as for a budgeted API key, in the payment's own transaction.
//
// The plugin keeps its own service key (nwc_keys, made at the first
// start), its connections' client keys, the answers it gave (so that a
// request a relay sends again is answered again, never executed twice),
// and its notifications to publish (queued from the outbox after a durable
// cursor, published until each relay takes them).
package nwc
