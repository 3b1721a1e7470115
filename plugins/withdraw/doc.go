// Package withdraw is the built-in LNURL-withdraw plugin (LUD-03, LUD-17):
// a wallet's owner makes links (and sheets of single-use vouchers) that
// let whoever holds one pull sats out of the wallet, once or a number of
// times, within limits, until it expires or is revoked.
//
// A link spends through a credential of its own: a delegation of the
// host (credential:delegate) whose budget, never renewed, is the link's
// uses × max_msat, so that the ledger refuses any payment past what the
// link promised, on every replica. Each use is claimed by a conditional
// update of the link (uses left, the wait between two uses, expiry,
// revocation), in the transaction that records the claim; the claim is
// then paid through the link's credential with an idempotency key of its
// own, by the callback's process at once and, after a crash, by the
// plugin's lead. Revoking a link revokes its credential: a claim not paid
// yet is refused by the ledger.
package withdraw
