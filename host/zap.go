package host

import (
	"context"
	"errors"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Zaps (NIP-57) meet two built-ins that may not import each other: the
// Lightning Address plugin owns the addresses, the payRequest and the
// callback; the Nostr plugin owns the server's key, the rules of zap
// requests and the receipts. The LNURL plugin consults a Zapper, which
// the Nostr plugin implements, and the Nostr plugin reads names through
// NostrNames, which the LNURL plugin implements; each provides its own to
// the registry and asks for the other's at each call (contracts.go).

// ZapRequest is a callback call that carries a zap request (the nostr
// query parameter) for an address that allows Nostr.
type ZapRequest struct {
	// AddressID, WalletID and Username are the address paid.
	AddressID, WalletID, Username string
	// RecipientPubkey is the address's registered Nostr key (hex).
	RecipientPubkey string
	// AmountMsat is the callback's amount parameter.
	AmountMsat int64
	// Raw is the nostr parameter exactly as received (URL-decoded, never
	// re-serialised): the invoice's description hash is its SHA-256, and
	// the receipt's description tag is it.
	Raw string
	// LNURL is the callback's lnurl parameter, if any.
	LNURL string
}

// Zapper validates zap requests and answers receipts for their invoices.
type Zapper interface {
	// NostrPubkey is the hex key that signs the receipts: the
	// payRequest's nostrPubkey.
	NostrPubkey() string
	// CheckZap validates r (NIP-57 appendix D); its error is the
	// callback's answer (a fault, 4xx).
	CheckZap(ctx context.Context, r ZapRequest) error
	// Zapped keeps r with the invoice made for it, before the invoice is
	// handed out; its settlement is then answered with a receipt.
	Zapped(ctx context.Context, r ZapRequest, inv *ledger.Invoice) error
}

// NostrNames is the NIP-05 directory: the Nostr key of the active address
// name that allows Nostr, or ErrNoNostrName.
type NostrNames interface {
	NostrName(ctx context.Context, name string) (pubkey string, err error)
}

// ErrNoNostrName is a name that has no Nostr key to answer.
var ErrNoNostrName = errors.New("no Nostr key for this name")
