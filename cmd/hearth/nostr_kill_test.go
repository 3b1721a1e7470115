package main

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/nostr"
)

// A server killed with SIGKILL between a zap's settlement and its
// receipt's publication (its relay was down, the attempt failed and was
// recorded), then started again with the relay back: the receipt reaches
// the relay once, signed by the key the payRequest advertised.
func TestNostrZapReceiptAfterAKill(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, environ []string) {
		relay := startRelay(t)
		relay.stop()
		environ = append(environ, "HEARTH_PLUGINS_ALLOW_PRIVATE_HOSTS=true")
		first, c := serveProcess(t, environ)
		token := signUp(t, c)
		alice, sender := newNostrUser(t), newNostrUser(t)
		c.expect(c.call("POST", "/v1/me/lightning-address",
			`{"username":"alice","allows_nostr":true,"nostr_pubkey":"`+alice.pk+`"}`, token), 201)
		var pp lnurl.PayParams
		c.decode(c.expect(c.call("GET", "/.well-known/lnurlp/alice", "", ""), 200), &pp)
		if !pp.AllowsNostr || pp.NostrPubkey == "" || pp.NostrPubkey == alice.pk {
			t.Fatalf("payRequest %+v", pp)
		}
		raw, _ := zapRequest(t, sender, "zap before a kill", gonostr.Tags{{"relays", relay.URL()}, {"amount", "5000"}, {"p", alice.pk}})
		cb, err := url.Parse(pp.Callback) // under public_url: asked of this server by its path
		if err != nil {
			t.Fatal(err)
		}
		var inv lnurl.Invoice
		c.decode(c.expect(c.call("GET", cb.Path+"?"+url.Values{"amount": {"5000"}, "nostr": {raw}}.Encode(), "", ""), 200), &inv)
		id := inv.Verify[strings.LastIndex(inv.Verify, "/")+1:]
		c.expect(c.call("POST", "/v1/lightning-node/pay", `{"bolt11":"`+inv.PR+`"}`, token), 204)
		zap := func(c *client) nostr.Zap {
			var z nostr.Zap
			c.decode(c.expect(c.call("GET", "/v1/me/zaps/"+id, "", token), 200), &z)
			return z
		}
		poll.Until(t, time.Minute, func() error {
			if z := zap(c); z.ReceiptID == nil || len(z.Relays) != 1 || z.Relays[0].Attempts == 0 {
				return fmt.Errorf("zap %+v: no failed attempt recorded yet", z)
			}
			return nil
		})
		first.kill()

		relay.start()
		_, c2 := serveProcess(t, environ)
		var receipt string
		poll.Until(t, time.Minute, func() error {
			z := zap(c2)
			if z.ReceiptID == nil || z.Relays[0].State != "published" {
				return fmt.Errorf("zap %+v: not published yet", z.Relays)
			}
			receipt = *z.ReceiptID
			return nil
		})
		relay.checkPublished(t, receipt, pp.NostrPubkey, inv.PR, raw)
	})
}
