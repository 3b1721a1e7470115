package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/lib/poll"
)

// A Hearth on a real lightningd killed with SIGKILL while its payment is
// held by the outside lnd, then started again. The payment stays Pending
// with its reserve until lnd decides: settled, it is Settled at the fee
// lightningd paid; a second one cancelled is Failed with the reserve back.
// lightningd made one payment of each, and the books balance.
func TestKilledWithPaymentInFlightOnCLN(t *testing.T) {
	net := clnNetwork.Get(t)
	databases(t, func(t *testing.T, environ []string) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		environ = append(environ, "HEARTH_NODE_BACKEND=cln", "HEARTH_NODE_CLN_RPC_FILE="+net.Hearth.RPCPath(), "HEARTH_NODE_CLN_GUARD_PLUGIN="+net.GuardPlugin)
		server, c := serveProcess(t, environ)
		token := signUp(t, c)
		type balance struct {
			AvailableMsat int64 `json:"available_msat"`
			ReservedMsat  int64 `json:"reserved_msat"`
		}
		balanceOf := func() balance {
			var b balance
			c.decode(c.expect(c.call("GET", "/v1/me/balance", "", token), 200), &b)
			return b
		}
		var inv struct {
			LnInvoice struct {
				Bolt11 string `json:"bolt11"`
			} `json:"ln_invoice"`
		}
		c.decode(c.expect(c.call("POST", "/v1/me/invoices", `{"amount_msat":1000000}`, token), 201), &inv)
		if _, err := net.LND.Pay(ctx, inv.LnInvoice.Bolt11, 10_000); err != nil {
			t.Fatal(err)
		}
		poll.Until(t, time.Minute, func() error {
			if b := balanceOf(); b.AvailableMsat != 1_000_000 {
				return fmt.Errorf("balance %+v", b)
			}
			return nil
		})

		for _, settle := range []bool{true, false} {
			before := balanceOf()
			hold, err := net.LND.AddHoldInvoice(ctx, 300_000)
			if err != nil {
				t.Fatal(err)
			}
			go c.try("POST", "/v1/me/payments", `{"input":"`+hold.Bolt11+`"}`, token) //nolint:errcheck // the server dies under it
			if err := net.LND.WaitInvoiceState(ctx, hold.Hash, "ACCEPTED"); err != nil {
				t.Fatal(err)
			}
			var list []struct {
				ID, Status string
			}
			c.decode(c.expect(c.call("GET", "/v1/me/payments?status=Pending", "", token), 200), &list)
			if len(list) != 1 {
				t.Fatalf("pending payments while held: %+v", list)
			}
			id := list[0].ID
			server.kill()

			if settle {
				err = net.LND.SettleHoldInvoice(ctx, hold)
			} else {
				err = net.LND.CancelInvoice(ctx, hold.Hash)
			}
			if err != nil {
				t.Fatal(err)
			}
			server, c = serveProcess(t, environ)
			restarted := server
			t.Cleanup(func() {
				if t.Failed() { // what the node and the server saw
					var pays any
					err := net.Hearth.Call(context.Background(), &pays, "listpays", map[string]any{"payment_hash": hold.Hash})
					t.Logf("lightningd's listpays: %s (%v)\nthe restarted server's output:\n%s", jsonOf(pays), err, restarted.out)
				}
			})
			var p struct {
				Status  string
				FeeMsat *int64 `json:"fee_msat"`
				Error   *string
			}
			want := map[bool]string{true: "Settled", false: "Failed"}[settle]
			poll.Until(t, 2*time.Minute, func() error {
				c.decode(c.expect(c.call("GET", "/v1/me/payments/"+id, "", token), 200), &p)
				if p.Status != want {
					return fmt.Errorf("payment %s, want %s", p.Status, want)
				}
				return nil
			})
			after := balanceOf()
			switch {
			case settle && (p.FeeMsat == nil || after != balance{AvailableMsat: before.AvailableMsat - 300_000 - *p.FeeMsat}):
				t.Fatalf("settled after the kill: balance %+v (was %+v), payment %s", after, before, jsonOf(p))
			case !settle && (p.Error == nil || after != before):
				t.Fatalf("failed after the kill: balance %+v (was %+v), payment %s", after, before, jsonOf(p))
			}
			if n, err := net.Hearth.PaymentCount(ctx, hold.Hash); err != nil || n != 1 {
				t.Fatalf("lightningd made %d payments of the held invoice (%v)", n, err)
			}
		}
		server.kill()
		check := newSyncWriter()
		if err := run(ctx, []string{"ledger", "check", "--node"}, check, environ); err != nil {
			t.Fatalf("ledger check --node: %v\n%s", err, check)
		}
	})
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
