// Package contract holds the contracts of the services built-ins offer
// each other through the registry (host.Service), none importing another:
// the name of each service and the type of the value its provider offers.
// A provider declares provides:<name> and offers a value of the type; a
// user declares uses:<name> and asks for it (host.Use) at each call, so
// that either may be listed without the other.
package contract

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
)

// The services' names.
const (
	// Zaps checks zap requests and answers their receipts (NIP-57): a
	// Zapper, which the Nostr plugin provides and the LNURL-pay callback
	// uses.
	Zaps = "zaps"
	// NostrNames is the NIP-05 directory: a Names, which the Lightning
	// Address plugin provides and the Nostr plugin's nostr.json uses.
	NostrNames = "nostr-names"
	// LightningAddress resolves Lightning Addresses to invoices: an
	// AddressResolver, which the Lightning Address plugin provides; the
	// ABI's ln_address host function is answered by it.
	LightningAddress = host.AddressService
	// NostrSigner signs Nostr events with the instance's key: a Signer,
	// which the Nostr plugin provides; the ABI's nostr_sign host function
	// is answered by it.
	NostrSigner = host.SignerService
)

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

// Names is the NIP-05 directory: the Nostr key of the active address
// name that allows Nostr, or ErrNoNostrName.
type Names interface {
	NostrName(ctx context.Context, name string) (pubkey string, err error)
}

// ErrNoNostrName is a name that has no Nostr key to answer.
var ErrNoNostrName = errors.New("no Nostr key for this name")

// AddressResolver finds an invoice of a Lightning Address.
type AddressResolver interface {
	// Resolve returns a BOLT11 invoice of amountMsat for address, checked
	// against the server's payRequest (amount and description hash).
	Resolve(ctx context.Context, address string, amountMsat int64, comment string) (string, error)
}

// Signer signs Nostr events with the instance's key.
type Signer interface {
	// SignEvent signs the unsigned event ({kind, created_at?, tags?,
	// content}; created_at defaults to now) as the instance: it returns
	// the event with its pubkey, id and sig (NIP-01). A malformed event
	// is a *host.CallError "invalid".
	SignEvent(ctx context.Context, unsigned json.RawMessage) (json.RawMessage, error)
}

// AddressService is the LightningAddress service of r, answering the ABI's
// ln_address host function: {address, amount_msat, comment} → {bolt11}.
func AddressService(r AddressResolver) host.Service {
	return host.Service{Name: LightningAddress, Value: r,
		Call: func(ctx context.Context, _ *host.Caller, req []byte) (any, error) {
			var in struct {
				Address    string `json:"address"`
				AmountMsat int64  `json:"amount_msat"`
				Comment    string `json:"comment"`
			}
			if err := host.DecodeRequest(req, &in); err != nil {
				return nil, err
			}
			bolt11, err := r.Resolve(ctx, in.Address, in.AmountMsat, in.Comment)
			if err != nil {
				return nil, err
			}
			return map[string]string{"bolt11": bolt11}, nil
		}}
}

// SignerService is the NostrSigner service of s, answering the ABI's
// nostr_sign host function: the unsigned event → the signed one.
func SignerService(s Signer) host.Service {
	return host.Service{Name: NostrSigner, Value: s,
		Call: func(ctx context.Context, _ *host.Caller, req []byte) (any, error) {
			return s.SignEvent(ctx, req)
		}}
}
