package nodes

import (
	"context"
	"os"
	"testing"

	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

var (
	network    regtest.Shared
	clnNetwork regtest.SharedCLN
)

func TestMain(m *testing.M) {
	code := m.Run()
	network.Close()
	clnNetwork.Close()
	os.Exit(code)
}

// TestCompareNodes runs a small comparison on each real node and database:
// every round of both nodes pays every invoice, the real node's internal
// rounds end with the node having confirmed a cancel for each payment, its
// external rounds pay every invoice of each outside peer, and the books
// balance (compareNodes checks them and fails otherwise).
func TestCompareNodes(t *testing.T) {
	t.Run("lnd", func(t *testing.T) { testCompareNodes(t, lndNet(network.Get(t))) })
	t.Run("cln", func(t *testing.T) { testCompareNodes(t, clnNet(clnNetwork.Get(t))) })
}

func testCompareNodes(t *testing.T, net *realNet) {
	o := Options{Clients: 4, Rounds: 2, Payments: 40, Warmup: 8, Rate: 200, RatePayments: 20, ExtPayments: 6, ExtClients: 3}
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			pgURL := os.Getenv(storetest.PostgresEnv)
			if db == "postgres" && pgURL == "" {
				t.Skipf("%s is not set", storetest.PostgresEnv)
			}
			rows, err := compareNodes(context.Background(), db, pgURL, o, net)
			if err != nil {
				t.Fatal(err)
			}
			internal := 2 * (o.Rounds + 1)
			if want := internal + 2*len(net.peers); len(rows) != want {
				t.Fatalf("%d rows, want %d", len(rows), want)
			}
			for _, r := range rows[:internal] {
				paid := o.Warmup/o.Clients*o.Clients + len(r.Latencies)
				switch {
				case r.peer != "":
					t.Errorf("%s %s: an external round among the internal ones", r.node, r.Name)
				case r.node == net.kind && r.unconfirmed > 0:
					t.Errorf("%s %s: %d of %d payments never cancelled at the node", r.node, r.Name, r.unconfirmed, paid)
				case r.node == net.kind && len(r.windows) != paid:
					t.Errorf("%s %s: %d windows for %d payments", r.node, r.Name, len(r.windows), paid)
				case r.node == "embedded" && r.windows != nil:
					t.Errorf("embedded %s: windows %v", r.Name, r.windows)
				case r.node != "embedded" && r.node != net.kind:
					t.Errorf("a row of node %q", r.node)
				}
			}
			seen := map[string]int{}
			for _, r := range rows[internal:] {
				if r.node != net.kind || r.peer == "" {
					t.Errorf("external row %+v: not of %s, or of no peer", r.Name, net.kind)
				}
				if want := o.ExtPayments / r.clients * r.clients; len(r.Latencies) != want {
					t.Errorf("%s %s: %d payments measured, want %d", r.node, r.Name, len(r.Latencies), want)
				}
				if r.feesMsat != 0 {
					t.Errorf("%s %s: %d msat of fees through a direct channel", r.node, r.Name, r.feesMsat)
				}
				seen[r.peer] += r.clients
			}
			for _, p := range net.peers {
				if seen[p.name] != 1+o.ExtClients {
					t.Errorf("external rounds to %s: clients %d, want 1 and %d", p.name, seen[p.name], o.ExtClients)
				}
			}
		})
	}
}
