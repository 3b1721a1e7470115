//go:build !wasip1

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/hearthwallet/hearth/plugintest"
)

// TestInTheHost runs the tip jar in a real host on each database: alice
// and bob each open their own jar; an outsider's tips to each are paid
// into the right wallet; each sees their own tips and no one else's.
func TestInTheHost(t *testing.T) {
	manifest, err := os.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	module := plugintest.Build(t, ".")
	plugintest.Each(t, plugintest.Options{}, func(t *testing.T, e *plugintest.Env) {
		e.Install(module, manifest)
		e.Enable("tipjar", "", "read:transaction", "write:transaction", "wallet:receive-any", "caller:act")
		alice, bob := e.Wallet("alice", 0), e.Wallet("bob", 0)
		carol := e.Wallet("carol", 100_000) // tips both
		user := []string{"read:transaction", "write:transaction"}
		decode := func(status int, body []byte, want int, v any) {
			t.Helper()
			if status != want {
				t.Fatalf("status %d, want %d: %s", status, want, body)
			}
			if err := json.Unmarshal(body, v); err != nil {
				t.Fatal(err)
			}
		}
		for who, title := range map[string]string{"alice": "Alice's coffee", "bob": "Bob's books"} {
			r := e.RequestAs("tipjar", who, user, "PUT", "/me", []byte(`{"title":"`+title+`"}`))
			var jar struct{ Page string }
			decode(r.Status, r.Body, 200, &jar)
			if jar.Page != "/v1/plugins/tipjar/u/"+who {
				t.Fatalf("%s's page: %q", who, jar.Page)
			}
		}
		var page struct{ Title string }
		r := e.Get("tipjar", "/u/bob")
		decode(r.Status, r.Body, 200, &page)
		if page.Title != "Bob's books" {
			t.Fatalf("bob's page: %+v", page)
		}
		tip := func(who string, msat int64) {
			t.Helper()
			r := e.Post("tipjar", "/u/"+who+"/tip", fmt.Appendf(nil, `{"amount_msat":%d,"note":"from carol"}`, msat))
			var inv struct{ Bolt11 string }
			decode(r.Status, r.Body, 201, &inv)
			e.Pay(carol.ID, inv.Bolt11)
		}
		tip("alice", 21_000)
		tip("bob", 5_000)
		tip("bob", 7_000)
		if a, b := e.Balance(alice.ID).AvailableMsat, e.Balance(bob.ID).AvailableMsat; a != 21_000 || b != 12_000 {
			t.Fatalf("alice has %d, bob %d; want 21000 and 12000", a, b)
		}
		for who, want := range map[string]int64{"alice": 21_000, "bob": 12_000} {
			var mine struct {
				WalletID     string `json:"wallet_id"`
				ReceivedMsat int64  `json:"received_msat"`
				Tips         []struct{ Status string }
			}
			r := e.RequestAs("tipjar", who, user, "GET", "/me", nil)
			decode(r.Status, r.Body, 200, &mine)
			wallet := map[string]string{"alice": alice.ID, "bob": bob.ID}[who]
			if mine.ReceivedMsat != want || mine.WalletID != wallet || len(mine.Tips) != map[string]int{"alice": 1, "bob": 2}[who] {
				t.Fatalf("%s's own tips: %s", who, r.Body)
			}
		}
		// The jar's tips are the invoices Hearth tagged as the plugin's: an
		// invoice alice makes herself, whatever its description, is none.
		own := e.UserInvoice(alice.ID, 1000, "Tip: not through the jar")
		e.Pay(carol.ID, own.LnInvoice.Bolt11)
		var mine struct {
			ReceivedMsat int64 `json:"received_msat"`
			Tips         []struct{ ID string }
		}
		r = e.RequestAs("tipjar", "alice", user, "GET", "/me", nil)
		decode(r.Status, r.Body, 200, &mine)
		if mine.ReceivedMsat != 21_000 || len(mine.Tips) != 1 {
			t.Fatalf("alice's tips after an invoice of her own: %s", r.Body)
		}
		tipped, err := e.Ledger.Invoice(t.Context(), alice.ID, mine.Tips[0].ID)
		if err != nil || tipped.Tag == nil || tipped.Tag.Plugin != "tipjar" || tipped.Tag.Value != "tip" {
			t.Fatalf("the tip's invoice: %+v %v", tipped, err)
		}

		// Without the caller's read:transaction, the host refuses to list for them.
		r = e.RequestAs("tipjar", "alice", []string{"write:transaction"}, "GET", "/me", nil)
		if r.Status != 503 {
			t.Fatalf("listing for a caller without read:transaction: %d %s", r.Status, r.Body)
		}
		if r := e.Get("tipjar", "/u/dave"); r.Status != 404 {
			t.Fatalf("a jar nobody opened: %d", r.Status)
		}

		// Granted all but caller:act, the plugin still learns who calls,
		// but its calls do not act for them: listing reads its own wallet,
		// and it is bound to none.
		var m map[string]any
		if err := json.Unmarshal(manifest, &m); err != nil {
			t.Fatal(err)
		}
		m["name"] = "tipjar-no-act"
		bare, _ := json.Marshal(m)
		e.Install(module, bare)
		e.Enable("tipjar-no-act", "", "read:transaction", "write:transaction", "wallet:receive-any")
		if r := e.RequestAs("tipjar-no-act", "alice", user, "PUT", "/me", []byte(`{"title":"again"}`)); r.Status != 200 {
			t.Fatalf("opening a jar without caller:act: %d %s", r.Status, r.Body)
		}
		if r := e.RequestAs("tipjar-no-act", "alice", user, "GET", "/me", nil); r.Status != 503 {
			t.Fatalf("listing alice's tips without caller:act: %d %s", r.Status, r.Body)
		}
		e.CheckLedger()
	})
}
