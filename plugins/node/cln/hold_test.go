package cln_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/core/withdraw"
	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/testkit/ledgertest"
)

// A hold invoice on Core Lightning survives a crash of lightningd while
// its HTLC is held: lightningd, which loads the guard plugin at its start
// (plugin=…, node.cln.guard "external"), is killed and started again; it
// replays the HTLC to the plugin, which holds it again, and the owner's
// settle then pays the owner once and the payer's payment succeeds. One
// cancelled after such a restart fails the payer's payment. On SQLite and
// PostgreSQL.
func TestHoldSurvivesALightningdCrash(t *testing.T) {
	net := network.Get(t)
	ctx := context.Background()
	withPlugin := "--plugin=" + net.GuardPlugin
	restart := func(extra ...string) {
		t.Helper()
		net.Hearth.Kill()
		if err := net.Hearth.RestartWith(ctx, extra...); err != nil {
			t.Fatal(err)
		}
		if err := net.WaitRoutable(ctx); err != nil {
			t.Fatal(err)
		}
	}
	restart(withPlugin)
	t.Cleanup(func() { restart() }) // as the other tests find it: the plugin started by Hearth
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		node, err := cln.New(cln.Config{RPCFile: net.Hearth.RPCPath(), Guard: cln.GuardExternal})
		if err != nil {
			t.Fatal(err)
		}
		h := &ledgertest.Books{T: t, DB: db}
		stop := h.Start(node, &withdraw.Config{}, nil)
		defer stop()
		bob := h.Wallet("bob")
		hold := func(msat int64) (*ledger.Invoice, string, chan error) {
			var raw [32]byte
			if _, err := rand.Read(raw[:]); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(raw[:])
			inv, err := h.Led.CreateHoldInvoice(ctx, bob, ledger.NewHoldInvoice{
				NewInvoice: ledger.NewInvoice{AmountMsat: msat}, PaymentHash: hex.EncodeToString(sum[:])})
			if err != nil {
				t.Fatal(err)
			}
			paid := make(chan error, 1)
			go func() {
				_, err := net.LND.Pay(context.Background(), inv.LnInvoice.Bolt11, 10_000)
				paid <- err
			}()
			h.WaitInvoice(inv.ID, ledger.StatusAccepted)
			return inv, hex.EncodeToString(raw[:]), paid
		}
		settled, preimage, settledPaid := hold(17_000)
		cancelled, _, cancelledPaid := hold(4_000)
		restart(withPlugin)
		if _, err := h.Led.SettleHold(ctx, bob, settled.ID, preimage); err != nil {
			t.Fatalf("settling after lightningd's restart: %v", err)
		}
		if err := <-settledPaid; err != nil {
			t.Fatalf("the payer's payment of the hold invoice settled after the restart: %v", err)
		}
		if _, err := h.Led.CancelHold(ctx, bob, cancelled.ID); err != nil {
			t.Fatal(err)
		}
		if err := <-cancelledPaid; err == nil {
			t.Fatal("the payer's payment of a cancelled hold invoice succeeded")
		}
		if b := h.Balance(bob); b != (wallet.Balance{AvailableMsat: 17_000, ReceivedMsat: 17_000}) {
			t.Fatalf("bob = %+v", b)
		}
		h.Check()
	})
}

// Terms a creation left in lightningd's datastore before it failed (the
// books have no invoice of the hash) do not stop the next creation for
// the hash: they are replaced, in the datastore and in the guard plugin,
// which had read them, and the new invoice is held and settled. Terms of
// an invoice paid are not replaced.
func TestHoldTermsLeftByAFailedCreationAreReplaced(t *testing.T) {
	net := network.Get(t)
	ctx := context.Background()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		node, err := cln.New(cln.Config{RPCFile: net.Hearth.RPCPath(), GuardPlugin: net.GuardPlugin})
		if err != nil {
			t.Fatal(err)
		}
		h := &ledgertest.Books{T: t, DB: db}
		stop := h.Start(node, &withdraw.Config{}, nil)
		defer stop()
		bob := h.Wallet("bob")
		var raw [32]byte
		if _, err := rand.Read(raw[:]); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw[:])
		hash := hex.EncodeToString(sum[:])
		left := `{"amount_msat":9000,"payment_secret":"` + hex.EncodeToString(make([]byte, 32)) + `","cltv":40,"expires_at":4102444800,"state":"open"}`
		if err := net.Hearth.Call(ctx, nil, "datastore", map[string]any{"key": []string{"hearth", "hold", hash}, "string": left, "mode": "must-create"}); err != nil {
			t.Fatal(err)
		}
		// The guard plugin reads them (Hearth has lightningd start it).
		poll.Until(t, 30*time.Second, func() error {
			var st struct {
				State string `json:"state"`
			}
			err := net.Hearth.Call(ctx, &st, "hearth-holdwait", map[string]any{"payment_hash": hash})
			if err == nil && st.State != "open" {
				err = fmt.Errorf("the plugin reads state %q", st.State)
			}
			return err
		})
		inv, err := h.Led.CreateHoldInvoice(ctx, bob, ledger.NewHoldInvoice{NewInvoice: ledger.NewInvoice{AmountMsat: 12_000}, PaymentHash: hash})
		if err != nil {
			t.Fatalf("a hold invoice over a failed creation's terms: %v", err)
		}
		paid := make(chan error, 1)
		go func() {
			_, err := net.LND.Pay(context.Background(), inv.LnInvoice.Bolt11, 10_000)
			paid <- err
		}()
		h.WaitInvoice(inv.ID, ledger.StatusAccepted)
		if _, err := h.Led.SettleHold(ctx, bob, inv.ID, hex.EncodeToString(raw[:])); err != nil {
			t.Fatal(err)
		}
		if err := <-paid; err != nil {
			t.Fatalf("the payer's payment: %v", err)
		}
		if b := h.Balance(bob); b != (wallet.Balance{AvailableMsat: 12_000, ReceivedMsat: 12_000}) {
			t.Fatalf("bob = %+v", b)
		}
		// Settled terms stay: the books refuse the hash, and so would the node.
		if _, err := node.CreateHoldInvoice(ctx, ledger.NodeHoldRequest{NodeInvoiceRequest: ledger.NodeInvoiceRequest{AmountMsat: 1_000, Expiry: time.Hour},
			PaymentHash: hash, MinFinalCLTVExpiryDelta: 40}); err == nil {
			t.Fatal("the terms of a settled hold invoice were replaced")
		}
		h.Check()
	})
}
