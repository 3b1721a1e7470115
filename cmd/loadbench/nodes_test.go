package main

import (
	"context"
	"os"
	"testing"

	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/internal/regtest"
)

var network regtest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	network.Close()
	os.Exit(code)
}

// TestCompareNodes runs a small comparison on each database: every round
// of both nodes pays every invoice, LND's rounds end with the node having
// confirmed a cancel for each payment, and the books balance (compareNodes
// checks them and fails otherwise).
func TestCompareNodes(t *testing.T) {
	net := network.Get(t)
	o := options{clients: 4}
	c := compareOptions{rounds: 2, payments: 40, warmup: 8, rate: 200, ratePayments: 20}
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			pgURL := os.Getenv(storetest.PostgresEnv)
			if db == "postgres" && pgURL == "" {
				t.Skipf("%s is not set", storetest.PostgresEnv)
			}
			rows, err := compareNodes(context.Background(), db, pgURL, o, c, net)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 2*(c.rounds+1) {
				t.Fatalf("%d rows, want %d", len(rows), 2*(c.rounds+1))
			}
			for _, r := range rows {
				paid := c.warmup/o.clients*o.clients + len(r.latencies)
				switch {
				case r.node == "lnd" && r.unconfirmed > 0:
					t.Errorf("%s %s: %d of %d payments never cancelled at the node", r.node, r.name, r.unconfirmed, paid)
				case r.node == "lnd" && len(r.windows) != paid:
					t.Errorf("%s %s: %d windows for %d payments", r.node, r.name, len(r.windows), paid)
				case r.node == "embedded" && r.windows != nil:
					t.Errorf("embedded %s: windows %v", r.name, r.windows)
				}
			}
		})
	}
}
