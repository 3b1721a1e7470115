package host

import (
	"context"

	"github.com/hearthwallet/hearth/core/auth"
)

// The ABI (hearth_v2) has two host functions that a service answers
// rather than the host: plugins compiled against it import them by these
// names and declare the capability by this name, whichever built-in
// provides the service. This file is the ABI's word for them, and the one
// file of the host that names a feature (internal/archtest).

// NostrSign is the capability of the nostr_sign host function: sign Nostr
// events with the instance's key.
const NostrSign = "nostr:sign"

// abiSign is NostrSign under the name the rest of the host knows it by.
const abiSign = NostrSign

// The services that answer the ABI's host functions, named as their
// providers offer them (contract/).
const (
	// AddressService resolves a Lightning Address to an invoice:
	// {address, amount_msat, comment} → {bolt11}.
	AddressService = "lightning-address"
	// SignerService signs a Nostr event with the instance's key: an
	// unsigned event {kind, created_at?, tags?, content} → the event with
	// its pubkey, id and sig (NIP-01).
	SignerService = "nostr-signer"
)

// abiService is a host function answered by a service: the service, what
// the call needs of the grant beyond the service's own rules, a
// capability it needs, and whether hearth_v2 added it.
type abiService struct {
	service    string
	need       need
	capability string
	v2         bool
}

// abiServices are the host functions that services answer, by name.
var abiServices = map[string]abiService{
	// ln_address pays: write:transaction on the plugin's wallet.
	"ln_address": {service: AddressService, need: need{scope: auth.WriteTransaction, wallet: true, what: "ln_address"}},
	"nostr_sign": {service: SignerService, need: need{what: "nostr_sign"}, capability: NostrSign, v2: true},
}

// CallABIService runs host function fn (ln_address, nostr_sign) for the
// plugin as the ABI does: what a built-in's tests call from Go.
func (c *Caller) CallABIService(ctx context.Context, fn string, req []byte) (any, error) {
	s, ok := abiServices[fn]
	if !ok {
		return nil, callErrorf("abi", "no host function %q answered by a service", fn)
	}
	return c.callService(ctx, s, req)
}
