package nodecontract

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Money moving both ways at once: the peer pays four invoices together,
// each credited once; four payments of one invoice race, and the node
// pays it once, the others answered that it is in flight or paid; three
// payments of distinct invoices together all settle, each paid once. The
// balance is exact to the msat.
func concurrent(t *testing.T, h *hearth) {
	ctx := context.Background()
	alice := h.Wallet("alice")
	invs := make([]*ledger.Invoice, 4)
	for i := range invs {
		invs[i] = h.Invoice(alice, 100_000)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(invs))
	for i, inv := range invs {
		wg.Go(func() { errs[i] = h.net.PeerPays(ctx, inv.LnInvoice.Bolt11) })
	}
	wg.Wait()
	for i, inv := range invs {
		if errs[i] != nil {
			t.Fatalf("the peer paying invoice %d: %v", i, errs[i])
		}
		h.WaitInvoice(inv.ID, ledger.StatusSettled)
	}
	if b := h.Balance(alice); b.AvailableMsat != 400_000 || b.ReceivedMsat != 400_000 {
		t.Fatalf("balance after four payments = %+v", b)
	}

	bolt11, hash, err := h.net.PeerInvoice(ctx, 50_000, "raced")
	if err != nil {
		t.Fatal(err)
	}
	settled := make([]*ledger.Payment, 4)
	errs = make([]error, 4)
	for i := range settled {
		wg.Go(func() {
			p, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: bolt11})
			settled[i], errs[i] = p, err
		})
	}
	wg.Wait()
	var fees int64
	wins := 0
	for i := range settled {
		switch {
		case errs[i] == nil && settled[i].Status == ledger.StatusSettled:
			wins++
			fees += *settled[i].FeeMsat
		case errs[i] == nil && settled[i].Status == ledger.StatusFailed:
			t.Logf("a racing payment failed at the node: %s", *settled[i].Error)
		case errors.Is(errs[i], ledger.ErrPaymentInFlight), errors.Is(errs[i], ledger.ErrInvoicePaid):
		default:
			t.Fatalf("racing payment %d: %+v %v", i, settled[i], errs[i])
		}
	}
	if n, err := h.net.PaymentCount(ctx, hash); wins != 1 || n != 1 || err != nil {
		t.Fatalf("%d racing payments settled; the node made %d payments (%v)", wins, n, err)
	}

	hashes := make([]string, 3)
	pays := make([]string, 3)
	for i := range pays {
		if pays[i], hashes[i], err = h.net.PeerInvoice(ctx, 20_000, "together"); err != nil {
			t.Fatal(err)
		}
	}
	for i, b := range pays {
		wg.Go(func() {
			p, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: b})
			if err == nil && p.Status != ledger.StatusSettled {
				err = errors.New("payment " + p.Status)
			}
			if err == nil {
				settled[i] = p
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i := range pays {
		if errs[i] != nil {
			t.Fatalf("payment %d of three together: %v", i, errs[i])
		}
		fees += *settled[i].FeeMsat
		if n, err := h.net.PaymentCount(ctx, hashes[i]); n != 1 || err != nil {
			t.Fatalf("the node made %d payments of invoice %d (%v)", n, i, err)
		}
	}
	if b := h.Balance(alice); b.ReservedMsat != 0 || b.AvailableMsat != 400_000-50_000-60_000-fees || b.SentMsat != 110_000 || b.FeesPaidMsat != fees {
		t.Fatalf("balance = %+v (fees %d)", b, fees)
	}
}
