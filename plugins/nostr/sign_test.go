package nostr

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
)

// SignEvent signs as the instance, whatever key, id or signature the
// plugin sends, and refuses what is no event.
func TestSignEvent(t *testing.T) {
	t.Parallel()
	p := New(Deps{DB: storetest.SQLite(t)})
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	other := gonostr.GeneratePrivateKey()
	otherPub, _ := gonostr.GetPublicKey(other)
	out, err := p.SignEvent(context.Background(), json.RawMessage(`{"kind":1,"content":"hi","tags":[["t","x"]],"pubkey":"`+otherPub+`","id":"00","sig":"00"}`))
	if err != nil {
		t.Fatal(err)
	}
	var ev gonostr.Event
	if err := json.Unmarshal(out, &ev); err != nil {
		t.Fatal(err)
	}
	if ok, err := ev.CheckSignature(); !ok || err != nil || ev.PubKey != p.NostrPubkey() || ev.Kind != 1 || ev.Content != "hi" || ev.CreatedAt == 0 {
		t.Fatalf("signed %s: %v %v, want by the instance's %s", out, ok, err, p.NostrPubkey())
	}
	for _, bad := range []string{`[]`, `{"content":"no kind"}`, `{"kind":70000}`, `{"kind":1,"tags":[[]]}`, `{"kind":1,"created_at":-5}`} {
		_, err := p.SignEvent(context.Background(), json.RawMessage(bad))
		var ce *host.CallError
		if !errors.As(err, &ce) || ce.Code != "invalid" {
			t.Errorf("signing %s: %v, want invalid", bad, err)
		}
	}
}
