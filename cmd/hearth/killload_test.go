package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// Internal payments through two replicas on one PostgreSQL database, while
// each replica in turn is killed -9 under the load and started again: the
// books stay exact (every wallet balances, no money created or lost,
// nothing left reserved or pending).
func TestTwoReplicasKilledUnderLoadKeepTheBooks(t *testing.T) {
	t.Parallel()
	dbURL := storetest.EmptySchemaURL(t)
	environ := []string{"HEARTH_DATABASE_URL=" + dbURL}
	replica := func() (*process, *client) {
		return serveProcess(t, append([]string{"HEARTH_DATA_DIR=" + t.TempDir()}, environ...))
	}
	procs := make([]*process, 2)
	var mu sync.Mutex
	clients := make([]*client, 2) // nil while a replica is down
	for i := range procs {
		procs[i], clients[i] = replica()
	}
	token := signUp(t, clients[0])
	const wallets, funds = 4, 1_000_000
	ids := make([]string, wallets)
	for i := range ids {
		c := clients[i%2]
		ids[i] = createWallet(t, c, token, fmt.Sprintf("user%d", i))
		inv := createInvoice(t, clients[1-i%2], token, ids[i], funds)
		c.expect(c.call("POST", "/v1/lightning-node/pay", fmt.Sprintf(`{"bolt11":%q}`, inv), token), 204)
	}

	var paid, failed atomic.Int64
	var problems sync.Map // unexpected answers, by text
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				c := clients[n%2]
				if c == nil {
					c = clients[1-n%2]
				}
				mu.Unlock()
				from, to := rng.IntN(wallets), rng.IntN(wallets-1)
				if to >= from {
					to++
				}
				if ok, problem := payOnce(c, token, ids[from], ids[to], 1+rng.Int64N(2_000)); ok {
					paid.Add(1)
				} else {
					failed.Add(1)
					if problem != "" {
						problems.Store(problem, true)
					}
				}
			}
		}()
	}
	waitPaid := func(more int64) {
		target := paid.Load() + more
		deadline := time.Now().Add(3 * time.Minute)
		for paid.Load() < target {
			if time.Now().After(deadline) {
				t.Fatalf("the load made %d of %d payments in 3 minutes", paid.Load(), target)
			}
			time.Sleep(10 * time.Millisecond) // polling the condition
		}
	}
	waitPaid(100)
	for i := range procs {
		mu.Lock()
		clients[i] = nil
		mu.Unlock()
		procs[i].kill() // requests in flight to it are cut
		waitPaid(100)
		p, c := replica()
		mu.Lock()
		procs[i], clients[i] = p, c
		mu.Unlock()
		waitPaid(100)
	}
	close(stop)
	wg.Wait()
	t.Logf("%d payments made, %d refused or cut across two kills", paid.Load(), failed.Load())
	problems.Range(func(k, _ any) bool {
		t.Errorf("unexpected answer: %s", k)
		return true
	})

	out := newSyncWriter()
	if err := run(context.Background(), []string{"ledger", "check"}, out, append([]string{"HEARTH_DATA_DIR=" + t.TempDir()}, environ...)); err != nil || !strings.Contains(out.String(), "every wallet balances") {
		t.Fatalf("ledger check: %v; %s", err, out)
	}
	db, err := store.Open(context.Background(), store.Options{PostgresURL: dbURL, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var total, reserved, pending int64
	if err := db.R.QueryRowContext(context.Background(),
		"SELECT coalesce(sum(available_msat), 0), coalesce(sum(reserved_msat), 0) FROM wallets").Scan(&total, &reserved); err != nil {
		t.Fatal(err)
	}
	if err := db.R.QueryRowContext(context.Background(),
		"SELECT count(*) FROM payments WHERE status = 'Pending'").Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if total != wallets*funds || reserved != 0 || pending != 0 {
		t.Fatalf("after the load: %d msat available (want %d), %d reserved, %d payments pending",
			total, wallets*funds, reserved, pending)
	}
}

// payOnce makes an invoice of payee and pays it from payer, both through c.
// It reports whether the payment was made, and describes an answer that no
// kill or balance explains.
func payOnce(c *client, token, payer, payee string, msat int64) (bool, string) {
	code, body, err := c.try("POST", "/v1/invoices", fmt.Sprintf(`{"wallet_id":%q,"amount_msat":%d}`, payee, msat), token)
	if err != nil {
		return false, "" // the replica was killed
	}
	if code != 201 {
		return false, fmt.Sprintf("POST /v1/invoices = %d %s", code, body)
	}
	var inv struct {
		LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
	}
	if err := json.Unmarshal(body, &inv); err != nil {
		return false, fmt.Sprintf("POST /v1/invoices: %s: %v", body, err)
	}
	bolt11 := inv.LnInvoice.Bolt11
	code, body, err = c.try("POST", "/v1/payments", fmt.Sprintf(`{"wallet_id":%q,"input":%q}`, payer, bolt11), token)
	switch {
	case err != nil:
		return false, ""
	case code == 201:
		return true, ""
	case code == 422 && strings.Contains(string(body), "nsufficient"):
		return false, ""
	default:
		return false, fmt.Sprintf("POST /v1/payments = %d %s", code, body)
	}
}

// try sends a request like call, but reports a failed exchange (the server
// was killed) as an error instead of failing the test: it may run on any
// goroutine.
func (c *client) try(method, path, body, token string) (int, []byte, error) {
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}
