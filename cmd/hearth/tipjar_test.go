package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/plugintest"
)

// The example tip jar (examples/tipjar, ABI hearth_v2), installed and
// granted through the admin API of `hearth serve`, on each database: two
// users, each with an API key of their own, open their own jars; tips
// from outside are paid into the right wallet; each user lists their own
// tips (the plugin acting for them, caller:act) and sees their balance.
func TestTipJarOverHTTP(t *testing.T) {
	t.Parallel()
	module := plugintest.Build(t, "../../examples/tipjar")
	manifest, err := os.ReadFile("../../examples/tipjar/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(module)
	install, _ := json.Marshal(map[string]any{"manifest": json.RawMessage(manifest),
		"wasm": base64.StdEncoding.EncodeToString(module), "sha256": hex.EncodeToString(sum[:])})
	databases(t, func(t *testing.T, environ []string) {
		// The install compiles the module to machine code inside the
		// request, over a minute in a -race binary on a busy machine,
		// longer than the server lets a request write: the tests' compile
		// cache, which plugintest.Build filled, spares it that.
		c, stop := serveForTest(t, append(environ, "HEARTH_LISTEN=127.0.0.1:0",
			"HEARTH_PLUGINS_CACHE_DIR="+plugintest.CompileCacheDir()))
		defer stop()
		admin := signUp(t, c)
		// The enable starts an instance of the module inside the request:
		// its Go runtime starting in the sandbox took over 30 s with both
		// processors kept busy by another process.
		installer := &client{t: t, base: c.base, http: &http.Client{Timeout: 5 * time.Minute}}
		installer.expect(installer.call("POST", "/v1/plugins", string(install), admin), 201)
		installer.expect(installer.call("POST", "/v1/plugins/tipjar/enable",
			`{"scopes":["read:transaction","write:transaction","wallet:receive-any","caller:act"]}`, admin), 200)
		keys := map[string]string{}
		for _, user := range []string{"alice", "bob"} {
			createWallet(t, c, admin, user)
			var k struct{ Key string }
			c.decode(c.expect(c.call("POST", "/v1/api-keys", fmt.Sprintf(
				`{"user_id":%q,"name":"phone","permissions":["read:wallet","read:transaction","write:transaction"]}`, user), admin), 201), &k)
			keys[user] = k.Key
			c.expect(callKey(c, "PUT", "/v1/plugins/tipjar/me", `{"title":"`+user+`'s jar"}`, k.Key), 200)
		}
		for _, tip := range []struct {
			user string
			msat int64
		}{{"alice", 21_000}, {"bob", 5_000}, {"bob", 8_000}} {
			var inv struct{ Bolt11 string }
			c.decode(c.expect(c.call("POST", "/v1/plugins/tipjar/u/"+tip.user+"/tip", fmt.Sprintf(`{"amount_msat":%d,"note":"thanks"}`, tip.msat), ""), 201), &inv)
			c.expect(c.call("POST", "/v1/lightning-node/pay", `{"bolt11":"`+inv.Bolt11+`"}`, admin), 204)
		}
		for user, want := range map[string]int64{"alice": 21_000, "bob": 13_000} {
			var b struct {
				AvailableMsat int64 `json:"available_msat"`
			}
			c.decode(c.expect(callKey(c, "GET", "/v1/me/balance", "", keys[user]), 200), &b)
			var mine struct {
				ReceivedMsat int64 `json:"received_msat"`
				Tips         []struct{ Status string }
			}
			c.decode(c.expect(callKey(c, "GET", "/v1/plugins/tipjar/me", "", keys[user]), 200), &mine)
			if b.AvailableMsat != want || mine.ReceivedMsat != want || len(mine.Tips) != map[string]int{"alice": 1, "bob": 2}[user] {
				t.Errorf("%s: balance %d, tips %+v; want %d", user, b.AvailableMsat, mine, want)
			}
		}
		// An anonymous caller has no jar of their own to open.
		c.expect(c.call("PUT", "/v1/plugins/tipjar/me", `{"title":"mine"}`, ""), 401)
	})
}
