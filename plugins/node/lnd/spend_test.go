package lnd_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/btcsuite/btcd/wire"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/node/lnd"
)

// A spend prepared (coins leased, signed, not published, its exact fee
// known), published, and confirmed; a prepared spend released; the
// refusals: no funds, another network's address; a transaction the
// network refuses is a definite failure. No lease is left behind.
func TestSpend(t *testing.T) {
	net := network.Get(t)
	h := newHearth(t, net, storetest.SQLite(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	leases := func() int {
		t.Helper()
		n, err := net.Hearth.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	base := leases()
	to, err := net.Peer.NewAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}

	sp, err := h.node.PrepareSpend(ctx, "spend-1", ledger.SpendRequest{Address: to, AmountSat: 75_000, SatPerVByte: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sp.FeeSat <= 0 || sp.FeeSat > 3*400 || sp.AmountSat != 75_000 || sp.Address != to || len(sp.TxID) != 64 {
		t.Fatalf("prepared = %+v", sp)
	}
	if leases() <= base {
		t.Fatal("a prepared spend leased no coin")
	}
	if _, err := h.node.LookupChainTx(ctx, sp.TxID); !errors.Is(err, ledger.ErrUnknownChainTx) {
		t.Fatalf("an unpublished spend is known: %v", err)
	}
	if err := h.node.PublishSpend(ctx, sp); err != nil {
		t.Fatal(err)
	}
	if err := h.node.PublishSpend(ctx, sp); err != nil {
		t.Fatalf("publishing again: %v", err)
	}
	got, err := h.node.LookupChainTx(ctx, sp.TxID)
	if err != nil || got.Confirmations != 0 || got.FeeSat != sp.FeeSat {
		t.Fatalf("published = %+v, %v (fee prepared %d)", got, err, sp.FeeSat)
	}
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, func() error {
		got, err := h.node.LookupChainTx(ctx, sp.TxID)
		if err == nil && (got.Confirmations != 1 || got.BlockHeight == 0 || got.FeeSat != sp.FeeSat || output(*got, to) != 75_000) {
			err = fmt.Errorf("confirmed = %+v", got)
		}
		return err
	})

	// Prepared, then released: nothing leased, nothing published.
	sp2, err := h.node.PrepareSpend(ctx, "spend-2", ledger.SpendRequest{Address: to, AmountSat: 10_000, TargetConf: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.node.ReleaseSpend(ctx, "spend-2"); err != nil {
		t.Fatal(err)
	}
	if err := h.node.ReleaseSpend(ctx, "spend-2"); err != nil {
		t.Fatalf("releasing again: %v", err)
	}
	if n := leases(); n != base {
		t.Fatalf("%d leases left, %d before", n, base)
	}
	if _, err := h.node.LookupChainTx(ctx, sp2.TxID); !errors.Is(err, ledger.ErrUnknownChainTx) {
		t.Fatalf("a released spend is known: %v", err)
	}

	// Refusals, with nothing leased.
	if _, err := h.node.PrepareSpend(ctx, "spend-3", ledger.SpendRequest{Address: to, AmountSat: 100 * 100_000_000}); !errors.Is(err, ledger.ErrNoChainFunds) {
		t.Fatalf("over the wallet's funds: %v", err)
	}
	mainnet := "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
	if _, err := h.node.PrepareSpend(ctx, "spend-4", ledger.SpendRequest{Address: mainnet, AmountSat: 10_000}); !errors.Is(err, ledger.ErrInvalidAddress) {
		t.Fatalf("a mainnet address: %v", err)
	}
	if n := leases(); n != base {
		t.Fatalf("%d leases left after refusals, %d before", n, base)
	}

	// A transaction the network refuses (its signature broken; the
	// witness is not part of the txid): a definite failure, unknown to
	// the wallet, and its coins free once released.
	sp5, err := h.node.PrepareSpend(ctx, "spend-5", ledger.SpendRequest{Address: to, AmountSat: 20_000, SatPerVByte: 2})
	if err != nil {
		t.Fatal(err)
	}
	var tx wire.MsgTx
	if err := tx.Deserialize(bytes.NewReader(sp5.RawTx)); err != nil {
		t.Fatal(err)
	}
	sig := tx.TxIn[0].Witness[0]
	sig[len(sig)/2] ^= 0xff
	var buf bytes.Buffer
	if err := tx.Serialize(&buf); err != nil {
		t.Fatal(err)
	}
	bad := *sp5
	bad.RawTx = buf.Bytes()
	var failure *ledger.PaymentFailure
	if err := h.node.PublishSpend(ctx, &bad); !errors.As(err, &failure) {
		t.Fatalf("a broken transaction: %v", err)
	}
	if _, err := h.node.LookupChainTx(ctx, sp5.TxID); !errors.Is(err, ledger.ErrUnknownChainTx) {
		t.Fatalf("a refused spend is known: %v", err)
	}
	if err := h.node.ReleaseSpend(ctx, "spend-5"); err != nil {
		t.Fatal(err)
	}
	if n := leases(); n != base {
		t.Fatalf("%d leases left at the end, %d before", n, base)
	}
}

// crashingNode is Hearth's LND whose spends' publication never answers:
// a crash between the ledger's reserve and the publication, before it
// (published false) or after it (true).
type crashingNode struct {
	*lnd.Node
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

// A crash between the reserve and the publication loses nothing: the
// spend the node never got is failed once no publication can still be
// under way, its reserve returned and its coins released at LND; the one
// the node got goes on and is settled at its confirmation, at its fee.
func TestSpendCrashBetweenReserveAndPublish(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		h := newHearth(t, net, db)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		w := h.Wallet("crash")
		h.fund(w, 300_000_000)
		to, err := net.Peer.NewAddress(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Coins of the node's own, confirmed, one for each spend.
		coins := map[string]int64{}
		for range 3 {
			a, err := net.Hearth.NewAddress(ctx)
			if err != nil {
				t.Fatal(err)
			}
			coins[a] = 1_000_000
		}
		if _, err := net.Peer.SendMany(ctx, coins); err != nil {
			t.Fatal(err)
		}
		if err := net.Mine(ctx, 1); err != nil {
			t.Fatal(err)
		}
		node := &crashingNode{Node: h.node}
		led := ledger.New(db, node, nil, ledger.Config{PayTimeout: 5 * time.Second}, nil)
		led.AddResolver(payTo(to))
		base, err := net.Hearth.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		amount := int64(60_000_000)
		lost, _, err := led.Pay(ctx, w, ledger.PayRequest{Input: "x", AmountMsat: &amount})
		if err != nil || lost.Status != ledger.StatusPending {
			t.Fatalf("lost = %+v, %v", lost, err)
		}
		node.published = true
		sent, _, err := led.Pay(ctx, w, ledger.PayRequest{Input: "y", AmountMsat: &amount})
		if err != nil || sent.Status != ledger.StatusPending {
			t.Fatalf("sent = %+v, %v", sent, err)
		}
		both, _ := net.Hearth.Leases(ctx)
		if both < base+2 {
			t.Fatalf("%d coins leased by two spends, %d before", both, base)
		}
		// A restart, later: the lost spend fails and its coins are free.
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
		if n, _ := net.Hearth.Leases(ctx); n != both-1 {
			t.Fatalf("%d coins leased after the lost spend failed, %d before", n, both)
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
		if n, _ := net.Hearth.Leases(ctx); n != base {
			t.Fatalf("%d coins leased after the spend confirmed, %d at first", n, base)
		}
		b := h.Balance(w)
		if b.SentMsat != amount || b.FeesPaidMsat != *sent.FeeMsat || b.ReservedMsat != 0 || b.AvailableMsat != 300_000_000-amount-*sent.FeeMsat {
			t.Fatalf("balance %+v, fee %d", b, *sent.FeeMsat)
		}
		h.Check()
	})
}
