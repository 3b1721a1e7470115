package nostr

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hearthwallet/hearth/contract"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/host"
)

// Bounds of an event another plugin has the instance sign (SignEvent).
const (
	maxSignedContent = 64 << 10
	maxSignedTags    = 200
)

// SignEvent signs an event as the instance, for a plugin granted
// nostr:sign (contract.Signer): the instance's key, its pubkey, the id
// and signature of NIP-01 over the plugin's kind, created_at (now when
// absent), tags and content. The plugin cannot choose the key or forge an
// id: what it sends of pubkey, id and sig is ignored.
func (p *Plugin) SignEvent(_ context.Context, unsigned json.RawMessage) (json.RawMessage, error) {
	var in struct {
		Kind      *int         `json:"kind"`
		CreatedAt int64        `json:"created_at"`
		Tags      gonostr.Tags `json:"tags"`
		Content   string       `json:"content"`
	}
	if err := json.Unmarshal(unsigned, &in); err != nil {
		return nil, &host.CallError{Code: "invalid", Message: "an event to sign is a JSON object {kind, created_at?, tags?, content}"}
	}
	switch {
	case in.Kind == nil || *in.Kind < 0 || *in.Kind > 65535:
		return nil, &host.CallError{Code: "invalid", Message: "kind must be an integer from 0 to 65535"}
	case len(in.Content) > maxSignedContent:
		return nil, &host.CallError{Code: "invalid", Message: fmt.Sprintf("content must be at most %d bytes", maxSignedContent)}
	case len(in.Tags) > maxSignedTags:
		return nil, &host.CallError{Code: "invalid", Message: fmt.Sprintf("at most %d tags", maxSignedTags)}
	case in.CreatedAt < 0:
		return nil, &host.CallError{Code: "invalid", Message: "created_at must be a Unix time"}
	}
	for _, t := range in.Tags {
		if len(t) == 0 {
			return nil, &host.CallError{Code: "invalid", Message: "a tag is a non-empty array of strings"}
		}
	}
	ev := gonostr.Event{Kind: *in.Kind, CreatedAt: gonostr.Timestamp(in.CreatedAt), Tags: in.Tags, Content: in.Content}
	if ev.CreatedAt == 0 {
		ev.CreatedAt = gonostr.Timestamp(time.Now().Unix())
	}
	if ev.Tags == nil {
		ev.Tags = gonostr.Tags{}
	}
	if err := ev.Sign(p.secretKey()); err != nil {
		return nil, fmt.Errorf("nostr: signing an event: %w", err)
	}
	return json.Marshal(&ev)
}

var _ contract.Signer = (*Plugin)(nil)
