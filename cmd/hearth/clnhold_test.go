package main

import (
	"context"
	"testing"
)

// holdAcrossAKill on a real lightningd: the outside lnd pays, the guard
// plugin holds the HTLC in lightningd's htlc_accepted hook, and while
// `hearth serve` is down the plugin, lightningd's child, runs on and still
// holds it (hearth-holdwait says accepted). On both databases.
//
// Not in parallel, as TestHoldInvoiceSurvivesAKill and the other tests on
// the shared Core Lightning network are not.
func TestHoldInvoiceSurvivesAKillOnCLN(t *testing.T) {
	net := clnNetwork.Get(t)
	databases(t, func(t *testing.T, environ []string) {
		environ = append(environ, "HEARTH_NODE_BACKEND=cln", "HEARTH_NODE_CLN_RPC_FILE="+net.Hearth.RPCPath(), "HEARTH_NODE_CLN_GUARD_PLUGIN="+net.GuardPlugin)
		pay := func(ctx context.Context, bolt11 string) error {
			_, err := net.LND.Pay(ctx, bolt11, 10_000)
			return err
		}
		holdAcrossAKill(t, environ, pay, func(ctx context.Context, hash string) {
			var st struct {
				State   string `json:"state"`
				Refused string `json:"refused"`
			}
			if err := net.Hearth.Call(ctx, &st, "hearth-holdwait", map[string]any{"payment_hash": hash}); err != nil || st.State != "accepted" {
				t.Fatalf("the guard plugin after Hearth's kill: %+v (%v)", st, err)
			}
		})
	})
}
