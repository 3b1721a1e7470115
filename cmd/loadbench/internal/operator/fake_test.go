package operator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeHearth answers the few calls of Hearth's API an operator's load
// makes, over books of its own: users by API key, balances, invoices.
type fakeHearth struct {
	mu         sync.Mutex
	keys       map[string]string // API key → user
	balance    map[string]int64  // user → msat
	invoices   map[string]fakeInvoice
	n          int
	dropCredit bool // pays without crediting the payee: books that do not add up
	*httptest.Server
}

type fakeInvoice struct {
	user   string
	amount int64
	paid   bool
}

func newFakeHearth(t *testing.T) *fakeHearth {
	f := &fakeHearth{keys: map[string]string{}, balance: map[string]int64{}, invoices: map[string]fakeInvoice{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Base, CPU and Label make the fake an operator.Server.
func (f *fakeHearth) Base() string       { return f.URL }
func (f *fakeHearth) CPU() time.Duration { return 0 }
func (f *fakeHearth) Label() string      { return "A" }

func (f *fakeHearth) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var in struct {
		UserID     string `json:"user_id"`
		AmountMsat int64  `json:"amount_msat"`
		Bolt11     string `json:"bolt11"`
		Input      string `json:"input"`
	}
	json.NewDecoder(r.Body).Decode(&in) //nolint:errcheck // GETs have none
	admin := r.Header.Get("Authorization") == "Bearer tok"
	user, keyed := f.keys[r.Header.Get("Api-Key")]
	answer := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v) //nolint:errcheck // a test's answer
	}
	switch route := r.Method + " " + r.URL.Path; {
	case route == "POST /v1/system/mark-welcome-complete":
		answer(http.StatusOK, map[string]any{})
	case route == "POST /v1/auth/sign-up" || route == "POST /v1/auth/sign-in":
		answer(http.StatusOK, map[string]string{"token": "tok"})
	case route == "POST /v1/wallets" && admin:
		f.balance[in.UserID] = 0
		answer(http.StatusCreated, map[string]any{})
	case route == "POST /v1/api-keys" && admin:
		f.keys["key-"+in.UserID] = in.UserID
		answer(http.StatusCreated, map[string]string{"key": "key-" + in.UserID})
	case route == "POST /v1/me/invoices" && keyed:
		f.n++
		b := fmt.Sprintf("lnbc-%d", f.n)
		f.invoices[b] = fakeInvoice{user: user, amount: in.AmountMsat}
		answer(http.StatusCreated, map[string]any{"ln_invoice": map[string]string{"bolt11": b}})
	case route == "POST /v1/lightning-node/pay" && admin:
		inv := f.invoices[in.Bolt11]
		f.balance[inv.user] += inv.amount
		answer(http.StatusOK, map[string]any{})
	case route == "POST /v1/me/payments" && keyed:
		inv, ok := f.invoices[in.Input]
		if !ok || inv.paid || f.balance[user] < inv.amount {
			answer(http.StatusBadRequest, map[string]string{"error": "cannot pay"})
			return
		}
		inv.paid, f.invoices[in.Input] = true, inv
		f.balance[user] -= inv.amount
		if !f.dropCredit {
			f.balance[inv.user] += inv.amount
		}
		answer(http.StatusCreated, map[string]string{"status": "Settled"})
	case route == "GET /v1/me/balance" && keyed:
		answer(http.StatusOK, map[string]int64{"available_msat": f.balance[user]})
	default:
		answer(http.StatusUnauthorized, map[string]string{"error": route})
	}
}

// TestLoad sets up a load over the API, pays from the pool in a phase,
// and checks the books: the payers funded for every payment they will
// make, every invoice of the pool paid once, and a server whose books do
// not add up caught.
func TestLoad(t *testing.T) {
	ctx := t.Context()
	fake := newFakeHearth(t)
	l, err := New(ctx, fake, 3, 10, machineMeter())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if len(l.Pool()) != 30 || len(l.PayerKeys()) != 3 || len(l.PayeeKeys()) != 3 || l.Admin() != "Bearer tok" {
		t.Fatalf("pool %d, payers %d, payees %d, admin %q", len(l.Pool()), len(l.PayerKeys()), len(l.PayeeKeys()), l.Admin())
	}
	if got := fake.balance["payer-001"]; got != 10_000 {
		t.Errorf("a payer was funded with %d msat, want 10 payments' 10000", got)
	}
	var mu sync.Mutex
	answered := map[int64]bool{}
	l.OnAnswered(func(j int64) { mu.Lock(); answered[j] = true; mu.Unlock() })
	r, err := l.Phase("flat out", 2, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Latencies) != 9 || l.Next() != 15 || len(answered) != 15 {
		t.Errorf("%d measured, next %d, %d answered; want 9 of 15 paid", len(r.Latencies), l.Next(), len(answered))
	}
	if err := l.Verify(ctx); err != nil {
		t.Errorf("books after the phase: %v", err)
	}
	if _, err := l.Phase("the rest", 0, 5, 0); err != nil || l.Next() != 30 {
		t.Fatalf("the rest of the pool: %v, next %d", err, l.Next())
	}
	if err := l.Verify(ctx); err != nil {
		t.Errorf("books with the pool spent: %v", err)
	}
	if _, err := l.Phase("one too many", 0, 1, 0); err == nil || !strings.Contains(err.Error(), "the pool's 30 invoices are spent") {
		t.Errorf("paying past the pool: %v", err)
	}
	if err := l.MakePool(ctx, 6); err != nil || l.Next() != 0 || len(l.Pool()) != 6 {
		t.Fatalf("a new pool: %v, next %d of %d", err, l.Next(), len(l.Pool()))
	}
	lossy := newFakeHearth(t)
	lossy.dropCredit = true
	l, err = New(ctx, lossy, 2, 1, machineMeter())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Phase("lossy", 0, 1, 0); err != nil {
		t.Fatal(err)
	}
	if err := l.Verify(ctx); err == nil || !strings.Contains(err.Error(), "A: the payees hold 0 msat, the payers paid 2000") {
		t.Errorf("books that do not add up: %v", err)
	}
}

// TestCalls: a token goes as Authorization, a key as Api-Key; an answer
// outside 2xx (Call) or other than the one wanted (CallJSON) is an error
// with its body.
func TestCalls(t *testing.T) {
	ctx := t.Context()
	fake := newFakeHearth(t)
	l := Attach(fake, 1, nil, nil, http.DefaultClient, machineMeter())
	if err := l.SignIn(ctx, "pw"); err != nil || l.Admin() != "Bearer tok" {
		t.Fatalf("sign-in: %v, %q", err, l.Admin())
	}
	if err := l.Call(ctx, "POST", "/v1/wallets", l.Admin(), map[string]string{"user_id": "u"}, nil); err != nil {
		t.Errorf("the admin's call: %v", err)
	}
	err := l.Call(ctx, "POST", "/v1/wallets", "key-nobody", map[string]string{"user_id": "u"}, nil)
	if err == nil || !strings.Contains(err.Error(), "POST /v1/wallets = 401") {
		t.Errorf("a key's call of the admin's: %v", err)
	}
	keys, err := l.Wallets(ctx, "payer")
	if err != nil || len(keys) != 1 || keys[0] != "key-payer-000" {
		t.Fatalf("wallets: %v, %v", keys, err)
	}
	var b struct {
		Available int64 `json:"available_msat"`
	}
	if _, err := l.GetJSON(ctx, "/v1/me/balance", keys[0], &b); err != nil || b.Available != 0 {
		t.Errorf("balance: %v, %+v", err, b)
	}
	if _, err := l.CallJSON(ctx, "POST", "/v1/api-keys", l.Admin(), map[string]string{"user_id": "v"}, http.StatusOK, nil); err == nil ||
		!strings.Contains(err.Error(), "= 201") {
		t.Errorf("a 201 where 200 is wanted: %v", err)
	}
}

// TestParallel does every index once, and stops at the first error.
func TestParallel(t *testing.T) {
	l := &Load{}
	var mu sync.Mutex
	seen := map[int]int{}
	if err := l.Parallel(100, func(i int) error { mu.Lock(); seen[i]++; mu.Unlock(); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if seen[i] != 1 {
			t.Fatalf("index %d done %d times", i, seen[i])
		}
	}
	err := l.Parallel(1000, func(i int) error {
		if i == 5 {
			return fmt.Errorf("index %d failed", i)
		}
		time.Sleep(time.Millisecond)
		return nil
	})
	if err == nil || err.Error() != "index 5 failed" {
		t.Errorf("err %v", err)
	}
}
