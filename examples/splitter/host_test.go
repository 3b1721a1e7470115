//go:build !wasip1

package main

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/plugintest"
)

// TestInTheHost runs the splitter in a real host: carol pays alice 50 000
// msat; the splitter forwards 10% to bob's Lightning Address, whose LNURL
// server (a test server) hands out invoices of bob's Hearth wallet, so the
// share settles internally through the real ledger.
func TestInTheHost(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		alice := e.Wallet("alice", 0)
		bob := e.Wallet("bob", 0)
		carol := e.Wallet("carol", 100_000)

		const meta = `[["text/plain","Pay to bob"],["text/identifier","bob@hearth.test"]]`
		var srv *httptest.Server
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch r.URL.Path {
			case "/.well-known/lnurlp/bob":
				json.NewEncoder(w).Encode(map[string]any{"tag": "payRequest", "callback": srv.URL + "/lnurlp/bob/callback",
					"minSendable": 1000, "maxSendable": 1_000_000_000, "metadata": meta, "commentAllowed": 140})
			case "/lnurlp/bob/callback":
				amount, _ := strconv.ParseInt(r.URL.Query().Get("amount"), 10, 64)
				sum := sha256.Sum256([]byte(meta))
				inv, err := e.CreateInvoice(bob.ID, amount, sum[:])
				if err != nil {
					json.NewEncoder(w).Encode(map[string]any{"status": "ERROR", "reason": err.Error()})
					return
				}
				json.NewEncoder(w).Encode(map[string]any{"pr": inv.Bolt11, "routes": []any{}})
			default:
				http.NotFound(w, r)
			}
		}))
		defer srv.Close()

		manifest, err := os.ReadFile("manifest.json")
		if err != nil {
			t.Fatal(err)
		}
		e.Install(plugintest.Build(t, "."), manifest)
		address := "bob@" + strings.TrimPrefix(srv.URL, "http://")
		cfg, _ := json.Marshal(map[string]any{"address": address, "percent": 10})
		e.Configure("splitter", cfg)
		e.Enable("splitter", alice.ID, "read:transaction", "write:transaction")

		inv, err := e.CreateInvoice(alice.ID, 50_000, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Pay(carol.ID, inv.Bolt11)
		e.Eventually("bob to receive the share", func() bool { return e.Balance(bob.ID).AvailableMsat == 5_000 })
		if b := e.Balance(alice.ID); b.AvailableMsat != 45_000 || b.SentMsat != 5_000 {
			t.Fatalf("alice: %+v", b)
		}
		e.CheckLedger()
	})
}
