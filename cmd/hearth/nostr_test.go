package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/coder/websocket"
	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/nostr"
	"github.com/hearthwallet/hearth/plugintest"
)

func npub(t *testing.T, pk string) string {
	t.Helper()
	b, _ := hex.DecodeString(pk)
	data, err := bech32.ConvertBits(b, 8, 5, true)
	if err != nil {
		t.Fatal(err)
	}
	s, err := bech32.Encode("npub", data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// NIP-05: the key of an active address that allows Nostr (registered with
// an npub, stored as hex), to any origin, and 404 for every other name.
func TestNostrNIP05(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		cfg := fastZaps
		cfg.DefaultRelays = []string{"wss://relay.example.com"}
		k := newZapKit(t, e, cfg)
		alice := newNostrUser(t)
		tokA, _ := k.user("alice", 0)
		r := k.do(tokA, "POST", "/v1/me/lightning-address", map[string]any{"username": "Alice", "allows_nostr": true, "nostr_pubkey": npub(t, alice.pk)})
		if r.Code != http.StatusCreated {
			t.Fatalf("registering with an npub: %d %s", r.Code, r.Body)
		}
		var a lnurl.Address
		r.decode(t, &a)
		if a.NostrPubkey == nil || *a.NostrPubkey != alice.pk {
			t.Fatalf("stored key %v, want hex %s", a.NostrPubkey, alice.pk)
		}
		r = k.do("", "GET", "/.well-known/nostr.json?name=alice", nil)
		if r.Code != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("nostr.json: %d %v %s", r.Code, r.Header, r.Body)
		}
		var names nostr.Names
		r.decode(t, &names)
		if names.Names["alice"] != alice.pk || len(names.Relays[alice.pk]) != 1 || names.Relays[alice.pk][0] != "wss://relay.example.com" {
			t.Fatalf("nostr.json: %s", r.Body)
		}

		tokB, _ := k.user("bob", 0)
		if r := k.do(tokB, "POST", "/v1/me/lightning-address", map[string]any{"username": "bob", "allows_nostr": true}); r.Code != http.StatusUnprocessableEntity {
			t.Fatalf("allows_nostr without a key: %d %s", r.Code, r.Body)
		}
		for _, bad := range []string{"npub1qqqq", strings.Repeat("g", 64), strings.Repeat("f", 64), "abcd"} {
			if r := k.do(tokB, "POST", "/v1/me/lightning-address", map[string]any{"username": "bob", "allows_nostr": true, "nostr_pubkey": bad}); r.Code != http.StatusUnprocessableEntity {
				t.Fatalf("key %q: %d %s", bad, r.Code, r.Body)
			}
		}
		k.do(tokB, "POST", "/v1/me/lightning-address", map[string]any{"username": "bob"})
		pp := k.payParams("bob")
		if pp.AllowsNostr || pp.NostrPubkey != "" {
			t.Fatalf("payRequest of an address without Nostr: %+v", pp)
		}
		// A zap to it is refused: its receipt would never come.
		raw, _ := zapRequest(t, alice, "", gonostr.Tags{{"relays", "wss://relay.example.com"}, {"p", alice.pk}})
		if r := k.callback(pp, 1000, raw, nil); r.Code != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "does not take zaps") {
			t.Fatalf("zap to an address without Nostr: %d %s", r.Code, r.Body)
		}
		tokC, _ := k.user("carol", 0)
		k.registerZappable(tokC, "carol", newNostrUser(t))
		if r := k.do(tokC, "PUT", "/v1/me/lightning-address", map[string]any{"active": false}); r.Code != http.StatusOK {
			t.Fatalf("deactivating: %d %s", r.Code, r.Body)
		}
		for _, q := range []string{"?name=bob", "?name=carol", "?name=nobody", "", "?name=", "?name=../x"} {
			r := k.do("", "GET", "/.well-known/nostr.json"+q, nil)
			if r.Code != http.StatusNotFound || r.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Fatalf("nostr.json%s: %d %s", q, r.Code, r.Body)
			}
		}
	})
}

// A zap from outside: the payRequest names the server's key, the invoice
// commits to the request as sent, and once paid the receipt reaches every
// relay of the request and the default relay, one of them down at the
// payment, each checked as a client checks it; the owner sees each relay.
func TestNostrZap(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		r1, r2, def := startRelay(t), startRelay(t), startRelay(t)
		cfg := fastZaps
		cfg.DefaultRelays = []string{def.URL()}
		k := newZapKit(t, e, cfg)
		alice, sender := newNostrUser(t), newNostrUser(t)
		tokA, wA := k.user("alice", 0)
		k.registerZappable(tokA, "alice", alice)
		pp := k.payParams("alice")
		if !pp.AllowsNostr || pp.NostrPubkey != k.zaps.NostrPubkey() || pp.NostrPubkey == alice.pk || !gonostr.IsValidPublicKey(pp.NostrPubkey) {
			t.Fatalf("payRequest: %+v, want the server's key %s", pp, k.zaps.NostrPubkey())
		}
		note := strings.Repeat("ab", 32)
		raw, req := zapRequest(t, sender, "Great post ⚡", gonostr.Tags{
			{"relays", r1.URL(), r2.URL() + "/", "https://not-a-relay.example.com"},
			{"amount", "21000"},
			{"lnurl", "lnurl1dp68gurn8ghj7um5v93kketj9ehx2amn9uh8wetvdskkkmn0wahz7mrww4excup0dajx2mrv92x9xp"},
			{"p", alice.pk}, {"e", note}, {"k", "1"},
		})
		r2.stop() // down when the zap is paid
		pr, id := k.invoiceOf(pp, 21000, raw)
		dec, err := e.Node.Decode(pr)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(raw))
		if dec.DescriptionHash != hex.EncodeToString(sum[:]) || dec.AmountMsat != 21000 {
			t.Fatalf("invoice commits to %s for %d msat, want sha256 of the request as sent %x and 21000", dec.DescriptionHash, dec.AmountMsat, sum)
		}
		if z := k.zapOf(tokA, id); z.ReceiptID != nil || z.Sender != sender.pk || z.Comment != "Great post ⚡" || *z.EventID != note {
			t.Fatalf("unpaid zap: %+v", z)
		}
		if err := e.Node.PayAsOutsider(context.Background(), pr); err != nil {
			t.Fatal(err)
		}
		for _, relay := range []*testRelay{r1, def} {
			k.checkReceipt(k.waitReceipt(relay, alice.pk, pr), pp, raw, req, pr)
		}
		// r2 failed meanwhile; the owner sees it, and it gets the receipt when back.
		e.Eventually("a failed attempt on the relay that is down", func() bool {
			for _, rl := range k.zapOf(tokA, id).Relays {
				if rl.URL == r2.URL() && rl.State == "pending" && rl.Attempts > 0 && rl.LastError != nil {
					return true
				}
			}
			return false
		})
		r2.start()
		rc := k.waitReceipt(r2, alice.pk, pr)
		k.checkReceipt(rc, pp, raw, req, pr)
		e.Eventually("every relay published", func() bool {
			z := k.zapOf(tokA, id)
			for _, rl := range z.Relays {
				if rl.State != "published" || rl.PublishedAt == nil {
					return false
				}
			}
			return len(z.Relays) == 3 && z.ReceiptID != nil && *z.ReceiptID == rc.ID
		})
		inv, err := e.Ledger.Invoice(context.Background(), wA.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if inv.PaymentTime == nil || int64(rc.CreatedAt) != inv.PaymentTime.Unix() {
			t.Fatalf("receipt created_at %d, paid at %v", rc.CreatedAt, inv.PaymentTime)
		}
		for _, relay := range []*testRelay{r1, r2, def} {
			if n := relay.times(rc.ID); n != 1 {
				t.Fatalf("%s was sent the receipt %d times", relay.URL(), n)
			}
		}
		// The key is never logged nor answered.
		var secret string
		if err := e.DB.R.NewRaw("SELECT secret FROM nostr_keys").Scan(context.Background(), &secret); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(k.logs.String(), secret) || strings.Contains(string(k.do(tokA, "GET", "/v1/me/zaps", nil).Body), secret) {
			t.Fatal("the server's secret key was logged or answered")
		}
	})
}

// Every bad zap request is refused in the LUD error form with a clear
// reason, and makes no invoice.
func TestNostrZapRefused(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newZapKit(t, e, fastZaps)
		alice, sender, other := newNostrUser(t), newNostrUser(t), newNostrUser(t)
		tokA, wA := k.user("alice", 0)
		k.registerZappable(tokA, "alice", alice)
		pp := k.payParams("alice")
		relays := gonostr.Tag{"relays", "wss://relay.example.com"}
		good := func() gonostr.Tags { return gonostr.Tags{relays, {"amount", "5000"}, {"p", alice.pk}} }
		sign := func(kind int, tags gonostr.Tags) *gonostr.Event {
			ev := &gonostr.Event{Kind: kind, Content: "hi", Tags: tags, CreatedAt: gonostr.Now()}
			if err := ev.Sign(sender.sk); err != nil {
				t.Fatal(err)
			}
			return ev
		}
		badSig := sign(nostr.KindZapRequest, good())
		badSig.Sig = strings.Repeat("0", 128)
		badID := sign(nostr.KindZapRequest, good())
		badID.Content = "changed after signing"
		notMine := sign(nostr.KindZapRequest, good())
		notMine.PubKey = other.pk
		for _, c := range []struct {
			name, raw, reason string
		}{
			{"bad signature", rawEvent(badSig), "bad signature"},
			{"id not the hash", rawEvent(badID), "id is not the hash"},
			{"pubkey of someone else", rawEvent(notMine), "id is not the hash"},
			{"wrong kind", rawEvent(sign(1, good())), "kind 1"},
			{"not JSON", "{not json", "not a JSON Nostr event"},
			{"no tags", rawEvent(sign(nostr.KindZapRequest, nil)), "no tags"},
			{"two p", rawEvent(sign(nostr.KindZapRequest, append(good(), gonostr.Tag{"p", other.pk}))), "2 p tags"},
			{"no p", rawEvent(sign(nostr.KindZapRequest, gonostr.Tags{relays})), "0 p tags"},
			{"p of another", rawEvent(sign(nostr.KindZapRequest, gonostr.Tags{relays, {"p", other.pk}})), "not the Nostr key of this Lightning Address"},
			{"two e", rawEvent(sign(nostr.KindZapRequest, append(good(), gonostr.Tag{"e", alice.pk}, gonostr.Tag{"e", other.pk}))), "2 e tags"},
			{"two P", rawEvent(sign(nostr.KindZapRequest, append(good(), gonostr.Tag{"P", sender.pk}, gonostr.Tag{"P", sender.pk}))), "2 P tags"},
			{"P not the sender", rawEvent(sign(nostr.KindZapRequest, append(good(), gonostr.Tag{"P", other.pk}))), "P tag is not the sender"},
			{"amount mismatch", rawEvent(sign(nostr.KindZapRequest, gonostr.Tags{relays, {"amount", "4000"}, {"p", alice.pk}})), "not the amount asked"},
			{"no relays", rawEvent(sign(nostr.KindZapRequest, gonostr.Tags{{"amount", "5000"}, {"p", alice.pk}})), "no relays tag"},
			{"no websocket relay", rawEvent(sign(nostr.KindZapRequest, gonostr.Tags{{"relays", "https://x.example.com"}, {"p", alice.pk}})), "names no ws"},
			{"bad a", rawEvent(sign(nostr.KindZapRequest, append(good(), gonostr.Tag{"a", "x:y"}))), "not an event coordinate"},
			{"bad e", rawEvent(sign(nostr.KindZapRequest, append(good(), gonostr.Tag{"e", "nothex"}))), "e tag is not an event id"},
		} {
			r := k.callback(pp, 5000, c.raw, nil)
			var body struct{ Status, Reason string }
			r.decode(t, &body)
			if r.Code != http.StatusBadRequest || body.Status != "ERROR" || !strings.Contains(body.Reason, c.reason) ||
				r.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("%s: %d %s, want 400 {ERROR, …%s…}", c.name, r.Code, r.Body, c.reason)
			}
		}
		invs, err := e.Ledger.Invoices(context.Background(), ledger.Filter{WalletID: wA.ID})
		if err != nil || len(invs) != 0 || len(k.zapsOf(tokA)) != 0 {
			t.Fatalf("refused zaps made invoices %v or zaps (%v)", invs, err)
		}
		// A valid request, with a comment alongside, is a zap still.
		raw, _ := zapRequest(t, sender, "ok", good())
		r := k.callback(pp, 5000, raw, map[string][]string{"comment": {"a comment"}})
		if r.Code != http.StatusOK || len(k.zapsOf(tokA)) != 1 {
			t.Fatalf("valid zap with a comment: %d %s", r.Code, r.Body)
		}
	})
}

// An anonymous zap (a throwaway key, an anon tag) whose callback URL is
// over 8 KiB; and an internal zap, paid from another wallet of the
// instance, both answered with receipts.
func TestNostrZapAnonymousAndInternal(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		relay := startRelay(t)
		k := newZapKit(t, e, fastZaps)
		alice, throwaway, bob := newNostrUser(t), newNostrUser(t), newNostrUser(t)
		tokA, _ := k.user("alice", 0)
		k.registerZappable(tokA, "alice", alice)
		pp := k.payParams("alice")

		long := strings.Repeat("long zap comment ", 600)
		raw, req := zapRequest(t, throwaway, long, gonostr.Tags{{"relays", relay.URL()}, {"amount", "3000"}, {"p", alice.pk}, {"anon"}})
		if q := len(pp.Callback) + len(raw); q < 8<<10 {
			t.Fatalf("the URL is only %d bytes", q)
		}
		pr, id := k.invoiceOf(pp, 3000, raw)
		if err := e.Node.PayAsOutsider(context.Background(), pr); err != nil {
			t.Fatal(err)
		}
		k.checkReceipt(k.waitReceipt(relay, alice.pk, pr), pp, raw, req, pr)
		if z := k.zapOf(tokA, id); !z.Anonymous || z.Sender != throwaway.pk || z.Comment != long {
			t.Fatalf("anonymous zap: %+v", z)
		}

		// Bob's wallet, on this instance, zaps alice: the ledger settles it
		// internally, and the receipt follows all the same.
		tokB, wB := k.user("bob", 50_000)
		_ = tokB
		raw, req = zapRequest(t, bob, "from a neighbour", gonostr.Tags{{"relays", relay.URL()}, {"amount", "4000"}, {"p", alice.pk}, {"e", strings.Repeat("cd", 32)}})
		pr, id = k.invoiceOf(pp, 4000, raw)
		if p := e.Pay(wB.ID, pr); p.Ledger != ledger.LedgerInternal {
			t.Fatalf("internal zap paid over %s", p.Ledger)
		}
		k.checkReceipt(k.waitReceipt(relay, alice.pk, pr), pp, raw, req, pr)
		if z := k.zapOf(tokA, id); z.Sender != bob.pk || z.PaidAt == nil {
			t.Fatalf("internal zap: %+v", z)
		}
	})
}

// Hearth stopped between the settlement and the publication publishes
// after its restart, exactly once per relay: a zap paid while it was
// down (no receipt yet), and one whose receipt was queued on a relay that
// was down.
func TestNostrZapReceiptAfterRestart(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		up, down := startRelay(t), startRelay(t)
		k := newZapKit(t, e, fastZaps)
		alice, sender := newNostrUser(t), newNostrUser(t)
		tokA, wA := k.user("alice", 0)
		k.registerZappable(tokA, "alice", alice)
		pp := k.payParams("alice")
		key := k.zaps.NostrPubkey()

		// 1: queued on a relay that is down, then Hearth stops.
		down.stop()
		raw1, req1 := zapRequest(t, sender, "one", gonostr.Tags{{"relays", up.URL(), down.URL()}, {"amount", "1000"}, {"p", alice.pk}})
		pr1, id1 := k.invoiceOf(pp, 1000, raw1)
		if err := e.Node.PayAsOutsider(context.Background(), pr1); err != nil {
			t.Fatal(err)
		}
		k.waitReceipt(up, alice.pk, pr1)
		e.Eventually("a failed attempt", func() bool {
			for _, rl := range k.zapOf(tokA, id1).Relays {
				if rl.URL == down.URL() && rl.Attempts > 0 {
					return true
				}
			}
			return false
		})
		k.stopLead()

		// 2: paid while Hearth is stopped.
		raw2, req2 := zapRequest(t, sender, "two", gonostr.Tags{{"relays", up.URL(), down.URL()}, {"amount", "2000"}, {"p", alice.pk}})
		pr2, id2 := k.invoiceOf(pp, 2000, raw2)
		if err := e.Node.PayAsOutsider(context.Background(), pr2); err != nil {
			t.Fatal(err)
		}
		e.Eventually("the invoice settled", func() bool {
			inv, err := e.Ledger.Invoice(context.Background(), wA.ID, id2)
			return err == nil && inv.Status == ledger.StatusSettled
		})
		if z := k.zapOf(tokA, id2); z.ReceiptID != nil {
			t.Fatalf("a receipt while stopped: %+v", z)
		}

		down.start()
		k.startLead(k.newNostr())
		if k.zaps.NostrPubkey() != key {
			t.Fatal("the key changed")
		}
		rc1 := k.waitReceipt(down, alice.pk, pr1)
		k.checkReceipt(rc1, pp, raw1, req1, pr1)
		for _, relay := range []*testRelay{up, down} {
			k.checkReceipt(k.waitReceipt(relay, alice.pk, pr2), pp, raw2, req2, pr2)
		}
		// Once more: a restart publishes nothing again. A third zap's
		// receipt, after the others in the outbox, shows that the
		// restarted lead went past them. (A relay has a receipt before
		// its OK is recorded: the restart waits for the records, or it
		// would rightly send again what it does not know was taken.)
		e.Eventually("every publication recorded", func() bool {
			for _, id := range []string{id1, id2} {
				for _, rl := range k.zapOf(tokA, id).Relays {
					if rl.State != "published" {
						return false
					}
				}
			}
			return true
		})
		k.restart()
		raw3, _ := zapRequest(t, sender, "three", gonostr.Tags{{"relays", up.URL(), down.URL()}, {"amount", "3000"}, {"p", alice.pk}})
		pr3, id3 := k.invoiceOf(pp, 3000, raw3)
		if err := e.Node.PayAsOutsider(context.Background(), pr3); err != nil {
			t.Fatal(err)
		}
		k.waitReceipt(up, alice.pk, pr3)
		k.waitReceipt(down, alice.pk, pr3)
		for _, id := range []string{id1, id2, id3} {
			z := k.zapOf(tokA, id)
			for _, relay := range []*testRelay{up, down} {
				if n := relay.times(*z.ReceiptID); n != 1 {
					t.Fatalf("zap %s: %s was sent its receipt %d times", id, relay.URL(), n)
				}
			}
		}
	})
}

// Relays are reached through the outbound guard: a relay on a loopback
// address is refused unless plugins.allow_private_hosts, and the owner
// sees why.
func TestNostrRelayGuard(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		relay := startRelay(t)
		cfg := fastZaps
		cfg.AllowPrivate = false
		k := newZapKit(t, e, cfg)
		alice, sender := newNostrUser(t), newNostrUser(t)
		tokA, _ := k.user("alice", 0)
		k.registerZappable(tokA, "alice", alice)
		raw, _ := zapRequest(t, sender, "", gonostr.Tags{{"relays", relay.URL()}, {"p", alice.pk}})
		pr, id := k.invoiceOf(k.payParams("alice"), 1000, raw)
		if err := e.Node.PayAsOutsider(context.Background(), pr); err != nil {
			t.Fatal(err)
		}
		e.Eventually("the loopback relay refused by the guard", func() bool {
			z := k.zapOf(tokA, id)
			return len(z.Relays) == 1 && z.Relays[0].LastError != nil && strings.Contains(*z.Relays[0].LastError, "private, loopback")
		})
		relay.mu.Lock()
		defer relay.mu.Unlock()
		if len(relay.events) != 0 {
			t.Fatal("the relay got the receipt")
		}
	})
}

// At most MaxRelays of a request's relays get its receipt (the first
// ones); a relay that refuses the receipt (OK false) and one that never
// answers OK are retried, each with its reason for the owner, while the
// others have it.
func TestNostrRelayFailures(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		good, refusing := startRelay(t), startRelay(t, "blocked: no zaps here")
		silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer c.CloseNow() //nolint:errcheck
			for {
				if _, _, err := c.Read(r.Context()); err != nil {
					return
				}
			}
		}))
		t.Cleanup(silent.Close)
		cfg := fastZaps
		cfg.MaxRelays = 3
		cfg.Timeout = 300 * time.Millisecond
		k := newZapKit(t, e, cfg)
		alice, sender := newNostrUser(t), newNostrUser(t)
		tokA, _ := k.user("alice", 0)
		k.registerZappable(tokA, "alice", alice)
		silentURL := "ws" + strings.TrimPrefix(silent.URL, "http")
		over := startRelay(t)
		raw, _ := zapRequest(t, sender, "", gonostr.Tags{{"relays", good.URL(), refusing.URL(), silentURL, over.URL()}, {"p", alice.pk}})
		pr, id := k.invoiceOf(k.payParams("alice"), 1000, raw)
		if err := e.Node.PayAsOutsider(context.Background(), pr); err != nil {
			t.Fatal(err)
		}
		k.waitReceipt(good, alice.pk, pr)
		e.Eventually("both failures retried with their reasons", func() bool {
			z := k.zapOf(tokA, id)
			if len(z.Relays) != 3 {
				t.Fatalf("relays %+v, want the first 3", z.Relays)
			}
			why := map[string]string{}
			for _, rl := range z.Relays {
				if rl.LastError != nil && rl.Attempts >= 2 && rl.State == "pending" {
					why[rl.URL] = *rl.LastError
				}
			}
			return strings.Contains(why[refusing.URL()], "refused: blocked: no zaps here") &&
				strings.Contains(why[silentURL], "no OK from the relay in time")
		})
		over.mu.Lock()
		defer over.mu.Unlock()
		if len(over.events) != 0 {
			t.Fatal("a relay over the cap got the receipt")
		}
	})
}

// A zap request encoded as NIP-57's example does (encodeURI leaves '+'
// as it is, which form decoding reads as a space) is taken, and the
// invoice commits to the request the client signed.
func TestNostrZapEncodeURI(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newZapKit(t, e, fastZaps)
		alice, sender := newNostrUser(t), newNostrUser(t)
		tokA, _ := k.user("alice", 0)
		k.registerZappable(tokA, "alice", alice)
		pp := k.payParams("alice")
		raw, _ := zapRequest(t, sender, "1+1=2, a b", gonostr.Tags{{"relays", "wss://relay.example.com"}, {"amount", "2000"}, {"p", alice.pk}})
		enc := url.PathEscape(raw) // like encodeURI: spaces %20, '+' and '=' as they are
		if !strings.Contains(enc, "1+1=2") {
			t.Fatalf("encoded %s", enc)
		}
		r := k.do("", "GET", pp.Callback+"?amount=2000&nostr="+enc, nil)
		if r.Code != http.StatusOK {
			t.Fatalf("encodeURI request: %d %s", r.Code, r.Body)
		}
		var inv lnurl.Invoice
		r.decode(t, &inv)
		dec, err := e.Node.Decode(inv.PR)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256([]byte(raw)); dec.DescriptionHash != hex.EncodeToString(sum[:]) {
			t.Fatal("the invoice does not commit to the request as signed")
		}
	})
}
