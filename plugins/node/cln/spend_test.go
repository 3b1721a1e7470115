package cln_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/testkit/ledgertest"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// A spend is prepared (coins reserved, signed, its exact fee measured),
// released, prepared again and published; it is listed unconfirmed, then
// confirmed. A broadcast the network refuses is a definite failure; an
// address of another network, an amount the wallet cannot afford, are
// refused before anything is reserved.
func TestSpend(t *testing.T) {
	n, d := backend(t)
	ctx := context.Background()
	dest := "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
	req := ledger.SpendRequest{Address: dest, AmountSat: 100_000, SatPerVByte: 10}

	sp, err := n.PrepareSpend(ctx, "estimate", req)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.TxID) != 64 || sp.RawTx != nil {
		t.Fatalf("txid %q, raw tx %x", sp.TxID, sp.RawTx)
	}
	// One input, the payment and change: 11 + 68 + 2*43 vbytes at 10 sat/vB.
	if sp.FeeSat != 1_650 || sp.AmountSat != 100_000 || sp.Address != dest || d.Reserved() != 1 {
		t.Fatalf("prepared = %+v, %d reserved", sp, d.Reserved())
	}
	if err := n.ReleaseSpend(ctx, "estimate"); err != nil || d.Reserved() != 0 {
		t.Fatalf("release: %v, %d reserved", err, d.Reserved())
	}
	if err := n.ReleaseSpend(ctx, "never prepared"); err != nil {
		t.Fatal(err)
	}

	sp, err = n.PrepareSpend(ctx, "pay", ledger.SpendRequest{Address: dest, AmountSat: 100_000, TargetConf: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.PublishSpend(ctx, sp); err != nil {
		t.Fatal(err)
	}
	got, err := n.LookupChainTx(ctx, sp.TxID)
	if err != nil || got.Confirmations != 0 || got.BlockHeight != 0 {
		t.Fatalf("published: %+v %v", got, err)
	}
	d.MineBlocks(1)
	if got, err = n.LookupChainTx(ctx, sp.TxID); err != nil || got.Confirmations != 1 || got.BlockHeight != 801 {
		t.Fatalf("mined: %+v %v", got, err)
	}
	if err := n.ReleaseSpend(ctx, "pay"); err != nil || d.Reserved() != 0 {
		t.Fatalf("release after publication: %v, %d reserved", err, d.Reserved())
	}

	refused, err := n.PrepareSpend(ctx, "refused", req)
	if err != nil {
		t.Fatal(err)
	}
	d.RefuseNextBroadcast("min relay fee not met")
	var pf *ledger.PaymentFailure
	if err := n.PublishSpend(ctx, refused); !errors.As(err, &pf) {
		t.Fatalf("refused broadcast: %v", err)
	}
	if err := n.ReleaseSpend(ctx, "refused"); err != nil || d.Reserved() != 0 {
		t.Fatalf("release after refusal: %v, %d reserved", err, d.Reserved())
	}

	if _, err := n.PrepareSpend(ctx, "x", ledger.SpendRequest{Address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", AmountSat: 1_000}); !errors.Is(err, ledger.ErrInvalidAddress) {
		t.Fatalf("mainnet address: %v", err)
	}
	if _, err := n.PrepareSpend(ctx, "x", ledger.SpendRequest{Address: dest, AmountSat: 300_000_000}); !errors.Is(err, ledger.ErrNoChainFunds) || d.Reserved() != 0 {
		t.Fatalf("too much: %v, %d reserved", err, d.Reserved())
	}
}

// reservedCoins lists the outpoints of the coins of Hearth's lightningd
// reserved now.
func reservedCoins(t *testing.T, net *regtest.CLNNetwork) []string {
	t.Helper()
	coins, err := net.Hearth.ReservedCoins(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(coins))
	for i, c := range coins {
		out[i] = c.Outpoint
	}
	slices.Sort(out)
	return out
}

// newlyReserved is what reserved holds that base did not. (A coin of base
// may come free meanwhile: its reservation ran out.)
func newlyReserved(base, reserved []string) []string {
	return slices.DeleteFunc(slices.Clone(reserved), func(c string) bool { return slices.Contains(base, c) })
}

// On a real lightningd: a spend prepared reserves its coins, signs, knows
// its exact fee (bitcoind's, once published), and is unknown to the
// wallet; released, its coins are free; published, it is listed
// unconfirmed, then confirmed, its coins spent. Refusals reserve nothing.
// A coin of a prepared spend taken and spent by another program of the
// node: the node refuses the publication, a definite failure, and the
// release frees the coin the spend still held.
func TestRealSpend(t *testing.T) {
	n, net := realBackend(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	to, err := net.LND.NewAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	base := reservedCoins(t, net)

	sp, err := n.PrepareSpend(ctx, "real-1", ledger.SpendRequest{Address: to, AmountSat: 75_000, SatPerVByte: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sp.FeeSat <= 0 || sp.FeeSat > 3*400 || sp.AmountSat != 75_000 || sp.Address != to || len(sp.TxID) != 64 {
		t.Fatalf("prepared = %+v", sp)
	}
	if held := newlyReserved(base, reservedCoins(t, net)); len(held) == 0 {
		t.Fatal("a prepared spend reserved no coin")
	}
	if _, err := n.LookupChainTx(ctx, sp.TxID); !errors.Is(err, ledger.ErrUnknownChainTx) {
		t.Fatalf("an unprepared spend is known: %v", err)
	}
	for range 2 {
		if err := n.ReleaseSpend(ctx, "real-1"); err != nil {
			t.Fatal(err)
		}
	}
	if r := reservedCoins(t, net); len(newlyReserved(base, r)) != 0 {
		t.Fatalf("reserved after the release %v, before %v", r, base)
	}

	sp, err = n.PrepareSpend(ctx, "real-2", ledger.SpendRequest{Address: to, AmountSat: 60_000, TargetConf: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.PublishSpend(ctx, sp); err != nil {
		t.Fatal(err)
	}
	if fee, err := net.Bitcoind.MempoolFee(ctx, sp.TxID); err != nil || fee != sp.FeeSat {
		t.Fatalf("bitcoind's fee %d (%v), prepared %d", fee, err, sp.FeeSat)
	}
	if got, err := n.LookupChainTx(ctx, sp.TxID); err != nil || got.Confirmations != 0 || got.BlockHeight != 0 || output(*got, to) != 60_000 {
		t.Fatalf("published = %+v, %v", got, err)
	}
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	tip, err := net.Height(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := n.LookupChainTx(ctx, sp.TxID); err != nil || got.Confirmations != 1 || got.BlockHeight != tip {
		t.Fatalf("mined at %d: %+v, %v", tip, got, err)
	}
	if err := n.ReleaseSpend(ctx, "real-2"); err != nil {
		t.Fatal(err)
	}
	if r := reservedCoins(t, net); len(newlyReserved(base, r)) != 0 {
		t.Fatalf("reserved after the publication %v, before %v", r, base)
	}

	// Refusals, nothing reserved.
	if _, err := n.PrepareSpend(ctx, "real-3", ledger.SpendRequest{Address: to, AmountSat: 1_000 * 100_000_000}); !errors.Is(err, ledger.ErrNoChainFunds) {
		t.Fatalf("over the wallet's funds: %v", err)
	}
	if _, err := n.PrepareSpend(ctx, "real-4", ledger.SpendRequest{Address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", AmountSat: 10_000}); !errors.Is(err, ledger.ErrInvalidAddress) {
		t.Fatalf("a mainnet address: %v", err)
	}
	if r := reservedCoins(t, net); len(newlyReserved(base, r)) != 0 {
		t.Fatalf("reserved after the refusals %v, before %v", r, base)
	}

	// A coin taken from under the spend.
	sp, err = n.PrepareSpend(ctx, "real-5", ledger.SpendRequest{Address: to, AmountSat: 20_000, SatPerVByte: 2})
	if err != nil {
		t.Fatal(err)
	}
	held := newlyReserved(base, reservedCoins(t, net))
	if len(held) == 0 {
		t.Fatal("a prepared spend reserved no coin")
	}
	self, err := net.Hearth.NewAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	taken, err := net.Hearth.TakeCoin(ctx, regtest.Coin{Outpoint: held[0]}, self, 20)
	if err != nil {
		t.Fatal(err)
	}
	var failure *ledger.PaymentFailure
	if err := n.PublishSpend(ctx, sp); !errors.As(err, &failure) {
		t.Fatalf("a spend of a coin spent: %v", err)
	}
	// The reason without the transaction lightningd appends to it.
	if !strings.HasPrefix(failure.Reason, "the transaction was refused: ") || !strings.Contains(failure.Reason, "insufficient fee") ||
		strings.Contains(failure.Reason, "Unsent tx") || strings.Contains(failure.Reason, `\n`) || strings.Contains(failure.Reason, "\n") {
		t.Fatalf("the refusal: %q", failure.Reason)
	}
	if _, err := n.LookupChainTx(ctx, sp.TxID); !errors.Is(err, ledger.ErrUnknownChainTx) {
		t.Fatalf("a refused spend is known: %v", err)
	}
	if err := n.ReleaseSpend(ctx, "real-5"); err != nil {
		t.Fatal(err)
	}
	// The taken coin stays reserved by the taker's spend until it
	// confirms (lightningd keeps a coin spent in the mempool reserved).
	if r := newlyReserved(base, reservedCoins(t, net)); !slices.Equal(r, held[:1]) {
		t.Fatalf("reserved after the refused spend's release %v, before %v; the spend held %v, %s taken", r, base, held, held[0])
	}
	if pool, err := net.Bitcoind.Mempool(ctx); err != nil || slices.Contains(pool, sp.TxID) || !slices.Contains(pool, taken) {
		t.Fatalf("mempool %v (%v): the refused %s published, or the taker's %s not", pool, err, sp.TxID, taken)
	}
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if r := reservedCoins(t, net); len(newlyReserved(base, r)) != 0 {
		t.Fatalf("reserved once the taker's spend confirmed %v, before %v", r, base)
	}
}

// A crash between the preparation of a spend and its publication, on a
// real lightningd. lightningd killed and started again: the spend's coins
// are still reserved (lightningd keeps its reservations), and the spend is
// published, or released, as if nothing happened. Hearth gone (the
// backend that prepared it forgotten): a new backend releases the coins at
// once, from the PSBT kept in lightningd's datastore.
func TestRealSpendCrash(t *testing.T) {
	n, net := realBackend(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	to, err := net.LND.NewAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	base := reservedCoins(t, net)
	restart := func() {
		t.Helper()
		net.Hearth.Kill()
		if err := net.Hearth.Restart(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// lightningd dies after the preparation: published after its restart.
	sp, err := n.PrepareSpend(ctx, "crash-1", ledger.SpendRequest{Address: to, AmountSat: 30_000, SatPerVByte: 2})
	if err != nil {
		t.Fatal(err)
	}
	held := reservedCoins(t, net)
	restart()
	if r := reservedCoins(t, net); !slices.Equal(r, held) {
		t.Fatalf("reserved after lightningd's restart %v, before %v", r, held)
	}
	if err := n.PublishSpend(ctx, sp); err != nil {
		t.Fatal(err)
	}
	if pool, err := net.Bitcoind.Mempool(ctx); err != nil || !slices.Contains(pool, sp.TxID) {
		t.Fatalf("mempool %v (%v) without the spend %s", pool, err, sp.TxID)
	}
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got, err := n.LookupChainTx(ctx, sp.TxID); err != nil || got.Confirmations != 1 {
		t.Fatalf("published after the restart: %+v %v", got, err)
	}

	// lightningd dies after the preparation: released after its restart.
	if _, err := n.PrepareSpend(ctx, "crash-2", ledger.SpendRequest{Address: to, AmountSat: 30_000, SatPerVByte: 2}); err != nil {
		t.Fatal(err)
	}
	restart()
	if err := n.ReleaseSpend(ctx, "crash-2"); err != nil {
		t.Fatal(err)
	}
	if r := reservedCoins(t, net); len(newlyReserved(base, r)) != 0 {
		t.Fatalf("reserved after the release %v, before %v", r, base)
	}

	// Hearth dies after the preparation: the next Hearth's backend, which
	// never saw the spend, releases its coins at once, its PSBT read back
	// from lightningd's datastore.
	if _, err := n.PrepareSpend(ctx, "crash-3", ledger.SpendRequest{Address: to, AmountSat: 30_000, SatPerVByte: 2}); err != nil {
		t.Fatal(err)
	}
	if lost := newlyReserved(base, reservedCoins(t, net)); len(lost) == 0 {
		t.Fatal("the spend reserved no coin")
	}
	after, err := cln.New(cln.Config{RPCFile: net.Hearth.RPCPath(), GuardPlugin: net.GuardPlugin})
	if err != nil {
		t.Fatal(err)
	}
	if err := after.ReleaseSpend(ctx, "crash-3"); err != nil {
		t.Fatal(err)
	}
	if r := reservedCoins(t, net); len(newlyReserved(base, r)) != 0 {
		t.Fatalf("reserved after the next Hearth released the spend %v, before %v", r, base)
	}
	// A release of a lease nobody prepared, or released already, does nothing.
	if err := after.ReleaseSpend(ctx, "crash-3"); err != nil {
		t.Fatal(err)
	}
}

// crashingNode is Hearth's lightningd whose spends' publication never
// answers: a crash between the ledger's reserve and the publication,
// before it (published false) or after it (true).
type crashingNode struct {
	*cln.Node
	published bool
}

func (c *crashingNode) PublishSpend(ctx context.Context, sp *ledger.PreparedSpend) error {
	if c.published {
		if err := c.Node.PublishSpend(ctx, sp); err != nil {
			return err
		}
	}
	return errors.New("the process died")
}

// payTo resolves every input as an on-chain spend to address.
type payTo string

func (a payTo) ResolvePayment(_ context.Context, _ string, req ledger.PayRequest, _ bool) (*ledger.Resolved, error) {
	return &ledger.Resolved{Onchain: &ledger.OnchainTarget{Address: string(a), AmountSat: *req.AmountMsat / 1000, SatPerVByte: 2}}, nil
}

// A crash between the reserve and the publication, on a real lightningd,
// on each database: restarted (a new backend, a new ledger, later), Hearth
// fails the spend the node never got and returns its reserve at once, and
// releases its coins at lightningd, their PSBT read back from lightningd's
// datastore (until then they stayed reserved for 72 blocks). The spend
// the node got goes on, and is settled at its confirmation at its fee.
func TestRealSpendCrashBetweenReserveAndPublish(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		n, _ := realBackend(t)
		books := &ledgertest.Books{T: t, DB: db}
		stop := books.Start(n, nil, nil)
		defer stop()
		w := books.Wallet("crash")
		inv := books.Invoice(w, 300_000_000)
		if _, err := net.LND.Pay(ctx, inv.LnInvoice.Bolt11, 10_000); err != nil {
			t.Fatal(err)
		}
		books.WaitInvoice(inv.ID, ledger.StatusSettled)
		to, err := net.LND.NewAddress(ctx)
		if err != nil {
			t.Fatal(err)
		}
		height, err := net.Height(ctx)
		if err != nil {
			t.Fatal(err)
		}
		base := reservedCoins(t, net)
		node := &crashingNode{Node: n}
		led := ledger.New(db, node, nil, ledger.Config{PayTimeout: 5 * time.Second}, nil)
		led.AddResolver(payTo(to))
		amount := int64(60_000_000)
		lost, _, err := led.Pay(ctx, w, ledger.PayRequest{Input: "x", AmountMsat: &amount})
		if err != nil || lost.Status != ledger.StatusPending {
			t.Fatalf("lost = %+v, %v", lost, err)
		}
		lostCoins := newlyReserved(base, reservedCoins(t, net))
		node.published = true
		sent, _, err := led.Pay(ctx, w, ledger.PayRequest{Input: "y", AmountMsat: &amount})
		if err != nil || sent.Status != ledger.StatusPending {
			t.Fatalf("sent = %+v, %v", sent, err)
		}

		// Restarted, later.
		after, err := cln.New(cln.Config{RPCFile: net.Hearth.RPCPath(), GuardPlugin: net.GuardPlugin})
		if err != nil {
			t.Fatal(err)
		}
		led = ledger.New(db, after, nil, ledger.Config{PayTimeout: 5 * time.Second}, nil)
		led.SetClock(func() time.Time { return time.Now().Add(5 * time.Minute) })
		if err := led.ReconcileSpends(ctx, nil, true); err != nil {
			t.Fatal(err)
		}
		if p, _ := led.Payment(ctx, w, lost.ID); p.Status != ledger.StatusFailed {
			t.Fatalf("lost = %+v", p)
		}
		if p, _ := led.Payment(ctx, w, sent.ID); p.Status != ledger.StatusPending {
			t.Fatalf("sent = %+v", p)
		}
		if b := books.Balance(w); b.ReservedMsat != amount+*sent.FeeMsat || b.AvailableMsat != 300_000_000-amount-*sent.FeeMsat {
			t.Fatalf("balance after the lost spend failed %+v, the sent one's fee %d", b, *sent.FeeMsat)
		}
		coins, err := net.Hearth.ReservedCoins(ctx, base...)
		if err != nil {
			t.Fatal(err)
		}
		if len(lostCoins) == 0 {
			t.Fatal("the lost spend reserved no coin")
		}
		for _, c := range coins {
			if slices.Contains(lostCoins, c.Outpoint) {
				t.Fatalf("the lost spend's coin %+v is still reserved (to block %d; the chain is at %d)", c, c.ReservedTo, height)
			}
		}

		if err := net.Mine(ctx, 1); err != nil {
			t.Fatal(err)
		}
		poll.Until(t, 30*time.Second, func() error {
			if err := led.ReconcileSpends(ctx, nil, true); err != nil {
				return err
			}
			if p, _ := led.Payment(ctx, w, sent.ID); p.Status != ledger.StatusSettled {
				return fmt.Errorf("sent %s", p.Status)
			}
			return nil
		})
		b := books.Balance(w)
		if b.SentMsat != amount || b.FeesPaidMsat != *sent.FeeMsat || b.ReservedMsat != 0 || b.AvailableMsat != 300_000_000-amount-*sent.FeeMsat {
			t.Fatalf("balance %+v, fee %d", b, *sent.FeeMsat)
		}
		books.Check()
	})
}

// Another program of the node frees the coins of a spend between txprepare
// and signpsbt, which refuses them: the backend prepares it once more, and
// a second refusal is a 409 to try again, never a 500, with nothing left
// reserved.
func TestSpendCoinsChangedUnderIt(t *testing.T) {
	n, d := backend(t)
	ctx := context.Background()
	req := ledger.SpendRequest{Address: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", AmountSat: 100_000, SatPerVByte: 10}
	d.UnreserveNextPrepared(1)
	sp, err := n.PrepareSpend(ctx, "once", req)
	if err != nil || d.Reserved() != 1 {
		t.Fatalf("prepared after one refusal: %+v %v, %d coins reserved", sp, err, d.Reserved())
	}
	if err := n.ReleaseSpend(ctx, "once"); err != nil {
		t.Fatal(err)
	}
	d.UnreserveNextPrepared(2)
	_, err = n.PrepareSpend(ctx, "twice", req)
	if !errors.Is(err, cln.ErrCoinsChanged) || d.Reserved() != 0 {
		t.Fatalf("refused twice: %v, want ErrCoinsChanged; %d coins reserved", err, d.Reserved())
	}
	if rej := d.Rejected(); len(rej) != 0 {
		t.Fatalf("calls the node refused as malformed: %v", rej)
	}
}
