package host

import (
	"context"
	"encoding/json"
)

// NostrSigner signs Nostr events with the instance's key: what the Nostr
// plugin provides (Registry.ProvideNostrSigner), and plugins granted
// nostr:sign reach through the host API (Caller.SignNostr, the nostr_sign
// host function).
type NostrSigner interface {
	// SignEvent signs the unsigned event ({kind, created_at?, tags?,
	// content}; created_at defaults to now) as the instance: it returns
	// the event with its pubkey, id and sig (NIP-01). A malformed event
	// is a *CallError "invalid".
	SignEvent(ctx context.Context, unsigned json.RawMessage) (json.RawMessage, error)
}

// SignNostr signs an event with the instance's Nostr key (the capability
// nostr:sign): a notification, a reply, an announcement as the instance.
func (c *Caller) SignNostr(ctx context.Context, unsigned json.RawMessage) (json.RawMessage, error) {
	if err := c.allowCap(ctx, NostrSign, "nostr_sign"); err != nil {
		return nil, err
	}
	signer := c.api.signer()
	if signer == nil {
		return nil, callErrorf("unavailable", "the instance has no Nostr key (the nostr plugin is not running)")
	}
	return signer.SignEvent(ctx, unsigned)
}

// ProvideNostrSigner has s sign Nostr events for plugins granted
// nostr:sign.
func (r *Registry) ProvideNostrSigner(s NostrSigner) {
	r.contracts.mu.Lock()
	defer r.contracts.mu.Unlock()
	r.contracts.signer = s
}

// NostrSigner is the provided signer, or nil.
func (r *Registry) NostrSigner() NostrSigner {
	r.contracts.mu.RLock()
	defer r.contracts.mu.RUnlock()
	return r.contracts.signer
}
