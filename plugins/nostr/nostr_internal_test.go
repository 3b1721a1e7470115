package nostr

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// The key is made at the first start and is the same at every start after
// it, on every replica; the plugin answers only its public half.
func TestServerKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		a, b := New(Deps{DB: db}), New(Deps{DB: db})
		if a.NostrPubkey() != "" {
			t.Fatal("a key before Start")
		}
		for _, p := range []*Plugin{a, b, a} {
			if err := p.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if a.NostrPubkey() != b.NostrPubkey() || !gonostr.IsValidPublicKey(a.NostrPubkey()) {
			t.Fatalf("keys %s and %s", a.NostrPubkey(), b.NostrPubkey())
		}
		if pk, _ := gonostr.GetPublicKey(a.secretKey()); pk != a.NostrPubkey() {
			t.Fatal("the secret is not the public key's")
		}
		z := (&zapRow{Request: "{}"}).api()
		if b, _ := json.Marshal(z); strings.Contains(string(b), a.secretKey()) {
			t.Fatal("secret in a zap")
		}
	})
}

func TestRelayURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"wss://relay.damus.io":              "wss://relay.damus.io",
		"wss://Relay.Damus.IO/":             "wss://relay.damus.io",
		" ws://monad.jb55.com:8080 ":        "ws://monad.jb55.com:8080",
		"wss://relay.example.com/inbox":     "wss://relay.example.com/inbox",
		"https://relay.damus.io":            "",
		"wss://user:pw@relay.damus.io":      "",
		"wss://":                            "",
		"relay.damus.io":                    "",
		"wss://relay.damus.io/#x":           "",
		"wss://" + strings.Repeat("a", 600): "",
	} {
		got, ok := relayURL(in)
		if got != want || ok != (want != "") {
			t.Errorf("relayURL(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// FuzzZapRequest: no zap request crashes the validation, and whatever it
// accepts is a signed kind 9734 event with one p, the recipient's.
func FuzzZapRequest(f *testing.F) {
	sk := gonostr.GeneratePrivateKey()
	pk, _ := gonostr.GetPublicKey(sk)
	ev := gonostr.Event{Kind: KindZapRequest, Tags: gonostr.Tags{{"relays", "wss://r.example.com"}, {"amount", "1000"}, {"p", pk}}, CreatedAt: 1}
	if err := ev.Sign(sk); err != nil {
		f.Fatal(err)
	}
	f.Add(ev.String(), int64(1000))
	f.Add(`{"kind":9734,"tags":[["p"],["e"],["P"],["relays"],["a"],["amount"]]}`, int64(1))
	f.Add(`{"kind":9734,"tags":null,"sig":"zz"}`, int64(0))
	f.Add(`[]`, int64(0))
	p := New(Deps{})
	if err := p.key.Use(sk); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string, amount int64) {
		z, err := p.parse(raw, pk, amount)
		if err == nil && (z.event.Kind != KindZapRequest || z.event.PubKey == "" || len(z.relays) == 0) {
			t.Fatalf("accepted %q", raw)
		}
		if err == nil {
			if _, err := p.receipt(raw, "lnbc1", nil, ev.CreatedAt.Time()); err != nil {
				t.Fatalf("receipt of an accepted request: %v", err)
			}
		}
	})
}
