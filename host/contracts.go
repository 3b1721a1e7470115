package host

import "sync"

// Contracts are what built-ins offer each other and the host through the
// registry, none importing another, in any order: the Lightning Address
// plugin resolves addresses (AddressResolver) and names Nostr keys
// (NostrNames), the Nostr plugin checks and answers zaps (Zapper) and signs
// with the instance's key (NostrSigner, nostrsign.go). A
// contract nobody provided is nil, and whoever asks does without it (no
// zaps, no NIP-05 names, ln_address unavailable): listing one built-in
// without the other is never an error.
type contracts struct {
	mu        sync.RWMutex
	addresses AddressResolver
	names     NostrNames
	zapper    Zapper
	signer    NostrSigner
}

// ProvideAddressResolver has a resolves Lightning Addresses for the host
// API's ln_address call and for whoever asks AddressResolver.
func (r *Registry) ProvideAddressResolver(a AddressResolver) {
	r.contracts.mu.Lock()
	defer r.contracts.mu.Unlock()
	r.contracts.addresses = a
}

// AddressResolver is the provided Lightning Address resolver, or nil.
func (r *Registry) AddressResolver() AddressResolver {
	r.contracts.mu.RLock()
	defer r.contracts.mu.RUnlock()
	return r.contracts.addresses
}

// ProvideNostrNames has n answer NIP-05 names.
func (r *Registry) ProvideNostrNames(n NostrNames) {
	r.contracts.mu.Lock()
	defer r.contracts.mu.Unlock()
	r.contracts.names = n
}

// NostrNames is the provided NIP-05 directory, or nil.
func (r *Registry) NostrNames() NostrNames {
	r.contracts.mu.RLock()
	defer r.contracts.mu.RUnlock()
	return r.contracts.names
}

// ProvideZapper has z check zap requests and answer their receipts.
func (r *Registry) ProvideZapper(z Zapper) {
	r.contracts.mu.Lock()
	defer r.contracts.mu.Unlock()
	r.contracts.zapper = z
}

// Zapper is the provided Zapper, or nil.
func (r *Registry) Zapper() Zapper {
	r.contracts.mu.RLock()
	defer r.contracts.mu.RUnlock()
	return r.contracts.zapper
}
