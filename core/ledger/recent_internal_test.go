package ledger

import (
	"strconv"
	"testing"
	"time"
)

// The recent invoices hold at most their size, forgetting the oldest first;
// they recall a copy, never an expired invoice, and nothing once forgotten.
func TestRecentInvoicesForgetTheOldest(t *testing.T) {
	t.Parallel()
	now := time.Now()
	r := newRecentInvoices(3)
	inv := func(i int) *Invoice {
		return &Invoice{ID: strconv.Itoa(i), Bolt11: "lnbcrt" + strconv.Itoa(i), Status: StatusPending, ExpiresAt: now.Add(time.Hour)}
	}
	for i := range 5 {
		r.remember(inv(i))
	}
	for i, want := range []bool{false, false, true, true, true} {
		if got := r.recall("lnbcrt"+strconv.Itoa(i), now) != nil; got != want {
			t.Errorf("invoice %d recalled: %v, want %v", i, got, want)
		}
	}
	c := r.recall("lnbcrt4", now)
	c.Status = StatusSettled
	if again := r.recall("lnbcrt4", now); again.Status != StatusPending {
		t.Fatalf("a recalled copy changed what is remembered: %+v", again)
	}
	r.forget("lnbcrt4")
	if r.recall("lnbcrt4", now) != nil {
		t.Fatal("a forgotten invoice was recalled")
	}
	if r.recall("lnbcrt3", now.Add(time.Hour)) != nil {
		t.Fatal("an invoice was recalled at its expiry")
	}
	// The ring comes round over the forgotten ones without losing the
	// invoices remembered since.
	for i := 5; i < 8; i++ {
		r.remember(inv(i))
	}
	for i := 5; i < 8; i++ {
		if r.recall("lnbcrt"+strconv.Itoa(i), now) == nil {
			t.Errorf("invoice %d was not recalled", i)
		}
	}
	if len(r.byText) != 3 {
		t.Fatalf("holds %d invoices, want 3", len(r.byText))
	}
}
