package nwc

import (
	"fmt"

	gonostr "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip04"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// The encryptions of NIP-47: NIP-44 v2, and NIP-04 for clients that send
// no encryption tag (the NIP's first version).
const (
	nip44v2 = "nip44_v2"
	nip04v  = "nip04"
)

// encryptions is the info event's encryption tag.
const encryptions = nip44v2 + " " + nip04v

// The kinds of NIP-47.
const (
	kindInfo          = 13194
	kindRequest       = 23194
	kindResponse      = 23195
	kindNotifyNIP04   = 23196
	kindNotifyNIP44v2 = 23197
)

// schemeOf is the encryption a request asks for: its encryption tag, or
// NIP-04 without one; ok is false for one the service does not speak.
func schemeOf(ev *gonostr.Event) (scheme string, ok bool) {
	t := ev.Tags.Find("encryption")
	if t == nil {
		return nip04v, true
	}
	switch t[1] {
	case nip44v2, nip04v:
		return t[1], true
	}
	return nip04v, false
}

// decrypt opens content sent by peer in scheme, with the service's key.
func decrypt(scheme, content, peer, secret string) (string, error) {
	if scheme == nip44v2 {
		key, err := nip44.GenerateConversationKey(peer, secret)
		if err != nil {
			return "", fmt.Errorf("nip44 key: %w", err)
		}
		return nip44.Decrypt(content, key)
	}
	key, err := nip04.ComputeSharedSecret(peer, secret)
	if err != nil {
		return "", fmt.Errorf("nip04 key: %w", err)
	}
	return nip04.Decrypt(content, key)
}

// encrypt seals plaintext for peer in scheme, with the service's key.
func encrypt(scheme, plaintext, peer, secret string) (string, error) {
	if scheme == nip44v2 {
		key, err := nip44.GenerateConversationKey(peer, secret)
		if err != nil {
			return "", fmt.Errorf("nip44 key: %w", err)
		}
		return nip44.Encrypt(plaintext, key)
	}
	key, err := nip04.ComputeSharedSecret(peer, secret)
	if err != nil {
		return "", fmt.Errorf("nip04 key: %w", err)
	}
	return nip04.Encrypt(plaintext, key)
}

// sealed is a signed event of kind from the wallet key secret to peer,
// its content plaintext encrypted in scheme, with tags after the peer's p
// tag.
func (p *Plugin) sealed(kind int, scheme, plaintext, secret, peer string, tags ...gonostr.Tag) (*gonostr.Event, error) {
	content, err := encrypt(scheme, plaintext, peer, secret)
	if err != nil {
		return nil, err
	}
	ev := &gonostr.Event{Kind: kind, CreatedAt: gonostr.Timestamp(p.cfg.Now().Unix()), Content: content,
		Tags: append(gonostr.Tags{{"p", peer}}, tags...)}
	if scheme == nip44v2 {
		ev.Tags = append(ev.Tags, gonostr.Tag{"encryption", nip44v2})
	}
	if err := ev.Sign(secret); err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	return ev, nil
}
