package api_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// TestBIP21LightningParameterIsPaid pays a bitcoin: URI whose lightning=
// parameter holds another wallet's invoice (api.md "Payment input": it
// wins over the address), on both databases.
func TestBIP21LightningParameterIsPaid(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 50_000)
		inv := bob.invoice(t, 20_000)
		uri := "bitcoin:bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080?amount=0.0000002&lightning=" + inv.LnInvoice.Bolt11
		var p ledger.Payment
		alice.pay(uri).expect(t, 201).decodeJSON(t, &p)
		if p.Status != "Settled" || p.AmountMsat != 20_000 {
			t.Fatalf("payment %+v, want Settled for 20000 msat", p)
		}
		if got := bob.balance(t).AvailableMsat; got != 20_000 {
			t.Fatalf("payee balance %d, want 20000", got)
		}
		e.checkLedger(t)
	})
}

// TestBadTextFailsOnlyItsOwnRequest is the hostile client of issue 13:
// payments whose input holds a NUL, sent concurrently with another
// wallet's valid payments, are refused with a 400 and make none of the
// valid ones fail (on PostgreSQL they shared its batches).
func TestBadTextFailsOnlyItsOwnRequest(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		e := newEnv(t, db, nil)
		payer, payee, hostile := e.user("payer"), e.user("payee"), e.user("mallory")
		payer.fund(t, 1_000_000)
		const n = 40
		invoices := make([]string, n)
		for i := range invoices {
			invoices[i] = payee.invoice(t, 1_000).LnInvoice.Bolt11
		}
		var wg sync.WaitGroup
		codes := make([]int, n)
		bad := make([]int, n)
		for i := range n {
			wg.Go(func() { codes[i] = payer.pay(invoices[i]).Code })
			wg.Go(func() {
				bad[i] = e.do("POST", "/v1/me/payments", `{"input":"lnbcrt1\u0000x`+fmt.Sprint(i)+`"}`, hostile.key...).Code
			})
		}
		wg.Wait()
		for i := range n {
			if codes[i] != 201 || bad[i] != 400 {
				t.Fatalf("payment %d: valid one got %d (want 201), the one with a NUL %d (want 400)", i, codes[i], bad[i])
			}
		}
		if got := payee.balance(t).AvailableMsat; got != n*1_000 {
			t.Fatalf("payee balance %d, want %d", got, n*1_000)
		}
		e.checkLedger(t)
	})
}
