package lnd_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// BenchmarkPayOverhead measures what Hearth adds to a Lightning payment.
// Each iteration pays three 1-sat invoices of the peer from Hearth's node:
//
//   - direct: routerrpc.SendPaymentV2 over gRPC from Go, waiting for the
//     outcome — what any program driving lnd does;
//   - hearth: the ledger's Pay — parse, reserve in a transaction, the same
//     SendPaymentV2, settle in a transaction, read the payment back — while
//     the ledger follows the node's streams as in production;
//   - lncli: `lncli payinvoice`, for reference only: its process start
//     flatters Hearth, so the overhead is reported against direct.
//
// Metrics: milliseconds per payment of each, and overhead-% = hearth over
// direct. Run: go test -run '^$' -bench PayOverhead -benchtime 30x ./plugins/node/lnd
func BenchmarkPayOverhead(b *testing.B) {
	net := network.Get(b)
	b.Run("sqlite", func(b *testing.B) { benchmarkPay(b, net, storetest.SQLite(b)) })
	b.Run("postgres", func(b *testing.B) { benchmarkPay(b, net, storetest.Postgres(b)) })
}

func benchmarkPay(b *testing.B, net *regtest.Network, db *store.DB) {
	ctx := context.Background()
	h := newHearth(b, net, db)
	alice := h.Wallet("alice")
	h.fund(alice, 20_000_000) // 20k sat: the peer funds every run of the benchmark
	bin, err := regtest.Binaries()
	if err != nil {
		b.Fatal(err)
	}
	lncli := []string{"--lnddir=" + net.Hearth.Dir, "--rpcserver=" + net.Hearth.RPCAddress, "--network=regtest"}
	invoice := func() string {
		bolt11, _, err := net.Peer.AddInvoice(ctx, 1_000, "bench")
		if err != nil {
			b.Fatal(err)
		}
		return bolt11
	}
	var direct, viaHearth, viaLncli time.Duration
	pay := []func(bolt11 string){
		func(bolt11 string) {
			began := time.Now()
			if _, err := net.Hearth.Pay(ctx, bolt11, 5_000); err != nil {
				b.Fatal(err)
			}
			direct += time.Since(began)
		},
		func(bolt11 string) {
			began := time.Now()
			p, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: bolt11})
			if err != nil || p.Status != ledger.StatusSettled {
				b.Fatalf("hearth pay: %+v %v", p, err)
			}
			viaHearth += time.Since(began)
		},
		func(bolt11 string) {
			began := time.Now()
			cmd := exec.Command(filepath.Join(bin, "lncli"), append(lncli, "payinvoice", "--force", "--json", bolt11)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("lncli payinvoice: %v: %s", err, out)
			}
			viaLncli += time.Since(began)
		},
	}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		invoices := []string{invoice(), invoice(), invoice()}
		b.StartTimer()
		// The order turns each iteration: a payment right after another
		// may wait for the channel's previous commitment update.
		for j := range pay {
			k := (i + j) % len(pay)
			pay[k](invoices[k])
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
	b.ReportMetric(ms(direct), "direct-ms/pay")
	b.ReportMetric(ms(viaHearth), "hearth-ms/pay")
	b.ReportMetric(ms(viaLncli), "lncli-ms/pay")
	b.ReportMetric(100*(float64(viaHearth)-float64(direct))/float64(direct), "overhead-%")
	h.Check()
}
