// Package nostr is the built-in Nostr plugin: NIP-05 names for the
// Lightning Addresses that allow Nostr, and zaps (NIP-57). The server has
// a key of its own, generated at first start and kept in the plugin's
// table; the Lightning Address plugin advertises it as the payRequest's
// nostrPubkey and hands the plugin the zap requests its callback receives
// (contract.Zapper). Once a zap's invoice is settled, the plugin's Lead, after
// its own cursor over the durable outbox, signs the receipt (kind 9735)
// and publishes it to every relay of the request and the configured
// default relays, each with its own retries and backoff, through the
// host's outbound guard.
package nostr
