// Package lnurl is the built-in plugin of Lightning Addresses and
// LNURL-pay (LUD-01, -06, -09, -12, -16, -21): each wallet may register
// one address username@<domain>, served to any LNURL wallet at
// /.well-known/lnurlp/{username} with invoices into the owner's wallet, and
// POST /v1/me/payments pays any Lightning Address or LNURL through the
// payment-input resolver it registers with the ledger: inside the instance
// for user@<own domain>, else through the outside server's checked
// invoice. It keeps its addresses in its own table (ln_addresses,
// migration 62) and reaches the ledger only through the host API and the
// resolver interface.
package lnurl
