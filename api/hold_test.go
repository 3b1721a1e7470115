package api_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

// secret is a fresh preimage and its payment hash, hex.
func secret(t testing.TB) (preimage, hash string) {
	t.Helper()
	var p [32]byte
	if _, err := rand.Read(p[:]); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(p[:])
	return hex.EncodeToString(p[:]), hex.EncodeToString(h[:])
}

// holdInvoice makes a hold invoice of amount into u's wallet for hash.
func (u *user) holdInvoice(t testing.TB, amount int64, hash string) ledger.Invoice {
	t.Helper()
	var inv ledger.Invoice
	u.e.do("POST", "/v1/me/hold-invoices", map[string]any{"amount_msat": amount, "payment_hash": hash, "description": "escrow"}, u.key...).
		expect(t, 201).decodeJSON(t, &inv)
	return inv
}

// readInvoice reads invoice id as its owner u.
func (u *user) readInvoice(t testing.TB, id string) ledger.Invoice {
	t.Helper()
	var inv ledger.Invoice
	u.e.do("GET", "/v1/me/invoices/"+id, nil, u.key...).expect(t, 200).decodeJSON(t, &inv)
	return inv
}

// A hold invoice paid from inside: the payer's amount is reserved and its
// payment Pending while the invoice is Accepted; settle moves the money
// with the preimage, once; cancel gives it back, once.
func TestHoldInvoicePaidFromInside(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 100_000)
		preimage, hash := secret(t)
		inv := bob.holdInvoice(t, 30_000, hash)
		if !inv.Hold || inv.Status != "Pending" || inv.LnInvoice == nil || inv.LnInvoice.PaymentHash != hash ||
			inv.LnInvoice.MinFinalCLTVExpiryDelta != ledger.DefaultHoldCLTVDelta {
			t.Fatalf("hold invoice = %+v", inv)
		}
		// Settling before it is paid: nothing to settle.
		e.do("POST", "/v1/me/invoices/"+inv.ID+"/settle", map[string]any{"preimage": preimage}, bob.key...).expect(t, 409)

		var p ledger.Payment
		alice.pay(inv.LnInvoice.Bolt11).expect(t, 201).decodeJSON(t, &p)
		if p.Status != "Pending" || p.Ledger != "Internal" || p.AmountMsat != 30_000 {
			t.Fatalf("payment of a hold invoice = %+v", p)
		}
		if b := alice.balance(t); b != (wallet.Balance{AvailableMsat: 70_000, ReservedMsat: 30_000, ReceivedMsat: 100_000}) {
			t.Fatalf("alice while held = %+v", b)
		}
		got := bob.readInvoice(t, inv.ID)
		if got.Status != "Accepted" || got.SettleBy == nil || got.Ledger != "Internal" ||
			got.SettleBy.Before(time.Now().Add(time.Duration(ledger.DefaultHoldCLTVDelta-20)*10*time.Minute)) {
			t.Fatalf("accepted invoice = %+v", got)
		}
		// Another payer finds it paid; the owner cannot pay it either.
		carol := e.user("carol")
		carol.fund(t, 50_000)
		if c := carol.pay(inv.LnInvoice.Bolt11).expect(t, 422).problem(t).Code; c != "invoice_paid" {
			t.Fatalf("second payer: %s", c)
		}
		var accepted []ledger.Invoice
		e.do("GET", "/v1/me/invoices?status=Accepted", nil, bob.key...).expect(t, 200).decodeJSON(t, &accepted)
		if len(accepted) != 1 || accepted[0].ID != inv.ID {
			t.Fatalf("Accepted invoices = %+v", accepted)
		}
		e.checkLedger(t)

		// A preimage that is not the invoice's: refused, nothing moves.
		other, _ := secret(t)
		if c := e.do("POST", "/v1/me/invoices/"+inv.ID+"/settle", map[string]any{"preimage": other}, bob.key...).
			expect(t, 422).problem(t).Code; c != "invalid_preimage" {
			t.Fatalf("wrong preimage: %s", c)
		}
		e.do("POST", "/v1/me/invoices/"+inv.ID+"/settle", map[string]any{"preimage": "zz"}, bob.key...).expect(t, 422)
		e.do("POST", "/v1/me/invoices/"+inv.ID+"/settle", map[string]any{}, bob.key...).expect(t, 400)
		// Another wallet's invoice is not found.
		e.do("POST", "/v1/me/invoices/"+inv.ID+"/settle", map[string]any{"preimage": preimage}, alice.key...).expect(t, 404)

		var settled ledger.Invoice
		e.do("POST", "/v1/me/invoices/"+inv.ID+"/settle", map[string]any{"preimage": preimage}, bob.key...).
			expect(t, 200).decodeJSON(t, &settled)
		if settled.Status != "Settled" || settled.LnInvoice.PaymentPreimage == nil || *settled.LnInvoice.PaymentPreimage != preimage {
			t.Fatalf("settled = %+v", settled)
		}
		// Again: the same answer, and the money moved once.
		e.do("POST", "/v1/me/invoices/"+inv.ID+"/settle", map[string]any{"preimage": preimage}, bob.key...).expect(t, 200)
		e.do("POST", "/v1/me/invoices/"+inv.ID+"/cancel", nil, bob.key...).expect(t, 409)
		if b := alice.balance(t); b != (wallet.Balance{AvailableMsat: 70_000, ReceivedMsat: 100_000, SentMsat: 30_000}) {
			t.Fatalf("alice after settle = %+v", b)
		}
		if b := bob.balance(t); b != (wallet.Balance{AvailableMsat: 30_000, ReceivedMsat: 30_000}) {
			t.Fatalf("bob after settle = %+v", b)
		}
		var paid ledger.Payment
		e.do("GET", "/v1/me/payments/"+p.ID, nil, alice.key...).expect(t, 200).decodeJSON(t, &paid)
		if paid.Status != "Settled" || paid.Internal == nil || paid.Internal.PaymentPreimage == nil || *paid.Internal.PaymentPreimage != preimage {
			t.Fatalf("alice's payment after settle = %+v", paid)
		}

		// Cancelled: the payer's money comes back, once.
		_, hash2 := secret(t)
		inv2 := bob.holdInvoice(t, 20_000, hash2)
		var p2 ledger.Payment
		alice.pay(inv2.LnInvoice.Bolt11).expect(t, 201).decodeJSON(t, &p2)
		var cancelled ledger.Invoice
		e.do("POST", "/v1/me/invoices/"+inv2.ID+"/cancel", nil, bob.key...).expect(t, 200).decodeJSON(t, &cancelled)
		if cancelled.Status != "Cancelled" {
			t.Fatalf("cancelled = %+v", cancelled)
		}
		e.do("POST", "/v1/me/invoices/"+inv2.ID+"/cancel", nil, bob.key...).expect(t, 200)
		e.do("GET", "/v1/me/payments/"+p2.ID, nil, alice.key...).expect(t, 200).decodeJSON(t, &p2)
		if p2.Status != "Failed" || p2.Error == nil {
			t.Fatalf("alice's payment after cancel = %+v", p2)
		}
		if b := alice.balance(t); b != (wallet.Balance{AvailableMsat: 70_000, ReceivedMsat: 100_000, SentMsat: 30_000}) {
			t.Fatalf("alice after cancel = %+v", b)
		}
		if c := carol.pay(inv2.LnInvoice.Bolt11).expect(t, 422).problem(t).Code; c != "invoice_cancelled" {
			t.Fatalf("paying a cancelled invoice: %s", c)
		}
		e.checkLedger(t)
	})
}

// Paid from outside through the node (the embedded node's outsider), a
// hold invoice is Accepted, then settled; the admin's routes do the same
// for any wallet. Bad requests are refused before anything is made.
func TestHoldInvoiceFromOutsideAndRefusals(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		bob := e.user("bob")
		admin := bearer(e.adminToken())
		preimage, hash := secret(t)
		var inv ledger.Invoice
		e.do("POST", "/v1/hold-invoices", map[string]any{"wallet_id": bob.id, "amount_msat": 12_000, "payment_hash": hash,
			"min_final_cltv_expiry_delta": 40}, admin...).expect(t, 201).decodeJSON(t, &inv)
		if !inv.Hold || inv.WalletID != bob.id || inv.LnInvoice.MinFinalCLTVExpiryDelta != 40 {
			t.Fatalf("admin's hold invoice = %+v", inv)
		}
		e.do("POST", "/v1/lightning-node/pay", map[string]any{"bolt11": inv.LnInvoice.Bolt11}, admin...).expect(t, 204)
		got := bob.readInvoice(t, inv.ID)
		if got.Status != "Accepted" || got.Ledger != "Lightning" || got.AmountReceivedMsat == nil || *got.AmountReceivedMsat != 12_000 {
			t.Fatalf("accepted from outside = %+v", got)
		}
		if b := bob.balance(t); b.AvailableMsat != 0 {
			t.Fatalf("bob credited before settling: %+v", b)
		}
		e.do("POST", "/v1/invoices/"+inv.ID+"/settle", map[string]any{"preimage": preimage}, admin...).expect(t, 200)
		if b := bob.balance(t); b != (wallet.Balance{AvailableMsat: 12_000, ReceivedMsat: 12_000}) {
			t.Fatalf("bob after settle = %+v", b)
		}

		// Refusals.
		e.do("POST", "/v1/me/hold-invoices", map[string]any{"amount_msat": 1_000}, bob.key...).expect(t, 400)
		_, fresh := secret(t)
		for _, body := range []map[string]any{
			{"amount_msat": 1_000, "payment_hash": "abcd"},
			{"amount_msat": 1_000, "payment_hash": fresh[:62] + "zz"},
			{"amount_msat": 0, "payment_hash": fresh},
			{"amount_msat": 1_000, "payment_hash": fresh, "min_final_cltv_expiry_delta": 10},
			{"amount_msat": 1_000, "payment_hash": fresh, "min_final_cltv_expiry_delta": 5000},
			{"amount_msat": 1_000, "payment_hash": fresh, "description_hash": "00"},
		} {
			e.do("POST", "/v1/me/hold-invoices", body, bob.key...).expect(t, 422).problem(t)
		}
		var none []ledger.Invoice
		e.do("GET", "/v1/me/invoices?status=Pending", nil, bob.key...).expect(t, 200).decodeJSON(t, &none)
		if len(none) != 0 {
			t.Fatalf("a refused request left invoices: %+v", none)
		}
		// A hash in use is a conflict.
		if c := e.do("POST", "/v1/me/hold-invoices", map[string]any{"amount_msat": 1_000, "payment_hash": hash}, bob.key...).
			expect(t, 409).problem(t).Code; c != "payment_hash_in_use" {
			t.Fatalf("hash in use: %s", c)
		}
		// An ordinary invoice is no hold invoice.
		plain := bob.invoice(t, 1_000)
		e.do("POST", "/v1/me/invoices/"+plain.ID+"/cancel", nil, bob.key...).expect(t, 422)
		e.do("POST", "/v1/me/invoices/nope/cancel", nil, bob.key...).expect(t, 400)
		e.do("POST", "/v1/me/invoices/6f1c2a1e-0000-4000-8000-000000000000/cancel", nil, bob.key...).expect(t, 404)
		e.checkLedger(t)
	})
}

// Settle, cancel and the deadline race for one Accepted hold invoice:
// exactly one wins, and the money moves as it says.
func TestHoldInvoiceEndsOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		bob := e.user("bob")
		const rounds = 6
		payers := make([]*user, rounds)
		for i := range payers {
			payers[i] = e.user(fmt.Sprintf("payer%d", i))
			payers[i].fund(t, 10_000)
		}
		settledN := 0
		for r := range rounds {
			preimage, hash := secret(t)
			inv := bob.holdInvoice(t, 4_000, hash)
			payers[r].pay(inv.LnInvoice.Bolt11).expect(t, 201)
			// The deadline is due for this round's invoice alone: the
			// clock moves past its settle_by (and no other is Accepted).
			e.ledger.SetClock(func() time.Time { return time.Now().Add(30 * 24 * time.Hour) })
			var wg sync.WaitGroup
			codes := make([]int, 8)
			start := make(chan struct{})
			for i := range codes {
				wg.Go(func() {
					<-start
					switch i % 3 {
					case 0:
						codes[i] = e.do("POST", "/v1/me/invoices/"+inv.ID+"/settle", map[string]any{"preimage": preimage}, bob.key...).Code
					case 1:
						codes[i] = e.do("POST", "/v1/me/invoices/"+inv.ID+"/cancel", nil, bob.key...).Code
					default:
						if _, err := e.ledger.CancelOverdueHolds(context.Background()); err != nil {
							t.Errorf("deadline: %v", err)
						}
						codes[i] = 200
					}
				})
			}
			close(start)
			wg.Wait()
			e.ledger.SetClock(time.Now)
			final := bob.readInvoice(t, inv.ID)
			for i, c := range codes {
				switch {
				case i%3 == 0 && final.Status == "Settled", i%3 == 1 && final.Status == "Cancelled":
					if c != 200 {
						t.Errorf("round %d: the winning side's call %d answered %d", r, i, c)
					}
				case c != 200 && c != 409:
					t.Errorf("round %d: call %d answered %d", r, i, c)
				}
			}
			b := payers[r].balance(t)
			switch final.Status {
			case "Settled":
				settledN++
				if b != (wallet.Balance{AvailableMsat: 6_000, ReceivedMsat: 10_000, SentMsat: 4_000}) {
					t.Fatalf("round %d settled, payer = %+v", r, b)
				}
			case "Cancelled":
				if b != (wallet.Balance{AvailableMsat: 10_000, ReceivedMsat: 10_000}) {
					t.Fatalf("round %d cancelled, payer = %+v", r, b)
				}
			default:
				t.Fatalf("round %d ended %s", r, final.Status)
			}
		}
		if b := bob.balance(t); b.AvailableMsat != int64(settledN)*4_000 {
			t.Fatalf("bob = %+v after %d settled", b, settledN)
		}
		e.checkLedger(t)
	})
}

// Left unsettled past settle_by, an Accepted hold invoice is cancelled by
// Hearth and its payer paid back; one still in time is left alone.
func TestHoldInvoiceDeadlineCancels(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 50_000)
		_, hash := secret(t)
		inv := bob.holdInvoice(t, 5_000, hash)
		alice.pay(inv.LnInvoice.Bolt11).expect(t, 201)
		if n, err := e.ledger.CancelOverdueHolds(context.Background()); err != nil || n != 0 {
			t.Fatalf("in time: cancelled %d, %v", n, err)
		}
		by := *bob.readInvoice(t, inv.ID).SettleBy
		e.ledger.SetClock(func() time.Time { return by.Add(time.Second) })
		if n, err := e.ledger.CancelOverdueHolds(context.Background()); err != nil || n != 1 {
			t.Fatalf("overdue: cancelled %d, %v", n, err)
		}
		e.ledger.SetClock(time.Now)
		if got := bob.readInvoice(t, inv.ID); got.Status != "Cancelled" {
			t.Fatalf("overdue invoice = %+v", got)
		}
		if b := alice.balance(t); b != (wallet.Balance{AvailableMsat: 50_000, ReceivedMsat: 50_000}) {
			t.Fatalf("alice after the deadline = %+v", b)
		}
		e.checkLedger(t)
	})
}

// Many payers of one hold invoice at once: one holds it, the others are
// refused and keep their money.
func TestHoldInvoiceHasOnePayer(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		bob := e.user("bob")
		payers := make([]*user, 6)
		for i := range payers {
			payers[i] = e.user(fmt.Sprintf("payer%d", i))
			payers[i].fund(t, 5_000)
		}
		_, hash := secret(t)
		inv := bob.holdInvoice(t, 3_000, hash)
		codes := make([]int, len(payers))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, p := range payers {
			wg.Go(func() {
				<-start
				codes[i] = p.pay(inv.LnInvoice.Bolt11).Code
			})
		}
		close(start)
		wg.Wait()
		held := 0
		for i, c := range codes {
			b := payers[i].balance(t)
			switch c {
			case 201:
				held++
				if b != (wallet.Balance{AvailableMsat: 2_000, ReservedMsat: 3_000, ReceivedMsat: 5_000}) {
					t.Errorf("holder = %+v", b)
				}
			case 409, 422:
				if b != (wallet.Balance{AvailableMsat: 5_000, ReceivedMsat: 5_000}) {
					t.Errorf("refused payer = %+v", b)
				}
			default:
				t.Errorf("payer %d: %d", i, c)
			}
		}
		if held != 1 {
			t.Fatalf("%d payers hold the invoice (%v)", held, codes)
		}
		e.checkLedger(t)
	})
}

// The events of a hold invoice: invoice.accepted when paid, then
// invoice.settled or invoice.cancelled (with the payer's payment.failed),
// each with the record as it is then.
func TestHoldInvoiceEvents(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnvWith(t, db, envOptions{events: true}, nil)
		srv := httptest.NewServer(e.srv)
		t.Cleanup(srv.Close)
		alice, bob := e.user("alice"), e.user("bob")
		bobs := openStream(t, srv.URL+"/v1/me/events", bob.key...)
		alices := openStream(t, srv.URL+"/v1/me/events", alice.key...)
		alice.fund(t, 100_000)
		if ev := next(t, alices); ev.event != "invoice.settled" {
			t.Fatalf("alice's funding: %s", ev.event)
		}

		status := func(ev streamed) string {
			var rec struct {
				ID     string `json:"id"`
				Status string `json:"status"`
				Hold   bool   `json:"hold"`
			}
			if err := json.Unmarshal(ev.body.Data, &rec); err != nil {
				t.Fatal(err)
			}
			return rec.Status
		}
		preimage, hash := secret(t)
		inv := bob.holdInvoice(t, 7_000, hash)
		alice.pay(inv.LnInvoice.Bolt11).expect(t, 201)
		if ev := next(t, bobs); ev.event != "invoice.accepted" || status(ev) != "Accepted" {
			t.Fatalf("bob's first event: %s %s", ev.event, ev.body.Data)
		}
		e.do("POST", "/v1/me/invoices/"+inv.ID+"/settle", map[string]any{"preimage": preimage}, bob.key...).expect(t, 200)
		if ev := next(t, bobs); ev.event != "invoice.settled" || status(ev) != "Settled" {
			t.Fatalf("bob's second event: %s %s", ev.event, ev.body.Data)
		}
		if ev := next(t, alices); ev.event != "payment.settled" {
			t.Fatalf("alice's event after settle: %s %s", ev.event, ev.body.Data)
		}

		_, hash2 := secret(t)
		inv2 := bob.holdInvoice(t, 2_000, hash2)
		alice.pay(inv2.LnInvoice.Bolt11).expect(t, 201)
		if ev := next(t, bobs); ev.event != "invoice.accepted" {
			t.Fatalf("bob's third event: %s", ev.event)
		}
		e.do("POST", "/v1/me/invoices/"+inv2.ID+"/cancel", nil, bob.key...).expect(t, 200)
		if ev := next(t, bobs); ev.event != "invoice.cancelled" || status(ev) != "Cancelled" {
			t.Fatalf("bob's fourth event: %s %s", ev.event, ev.body.Data)
		}
		if ev := next(t, alices); ev.event != "payment.failed" {
			t.Fatalf("alice's event after cancel: %s %s", ev.event, ev.body.Data)
		}
	})
}
