package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// balancer is a round-robin load balancer in the test, as a proxy in
// front of replicas is: it checks each replica's health every
// probeInterval and sends requests only to the healthy ones; a connection
// refused (nothing sent) is tried on the next replica at once, which is
// then out until its health check passes again; a request that got no
// answer is sent again only if it is a GET or carries an Idempotency-Key
// (then with the same key), and is otherwise dropped. A passive balancer
// takes a replica out only when it refuses a connection: its health check
// only brings a (restarted) replica in.
type balancer struct {
	t       *testing.T
	passive bool
	client  *http.Client // requests, over keep-alive connections
	probe   *http.Client // health checks

	mu      sync.Mutex
	bases   []string // a restarted replica listens elsewhere
	up      []bool
	next    int
	changed chan struct{} // closed, and replaced, when a replica comes up

	answered []atomic.Int64 // answers, by replica
	// refused counts the connections refused, retried counts the requests
	// that got no answer and were sent again, dropped those that were not,
	// and fiveXX the answers 500 or above.
	refused, retried, dropped, fiveXX atomic.Int64
	cuts                              sync.Map // the errors of requests without an answer, by text

	stop chan struct{}
	wg   sync.WaitGroup
}

// probeInterval is the time between two health checks of a replica.
const probeInterval = 25 * time.Millisecond

// newBalancer balances over the replicas at bases, once each is healthy.
func newBalancer(t *testing.T, passive bool, bases ...string) *balancer {
	b := &balancer{
		t:        t,
		passive:  passive,
		client:   &http.Client{Timeout: time.Minute},
		probe:    &http.Client{Timeout: 5 * time.Second},
		bases:    bases,
		up:       make([]bool, len(bases)),
		changed:  make(chan struct{}),
		answered: make([]atomic.Int64, len(bases)),
		stop:     make(chan struct{}),
	}
	for i := range bases {
		b.wg.Go(func() { b.check(i) })
	}
	t.Cleanup(func() {
		close(b.stop)
		b.wg.Wait()
		b.client.CloseIdleConnections()
		b.probe.CloseIdleConnections()
	})
	return b
}

// check checks replica i's health until the balancer stops.
func (b *balancer) check(i int) {
	tick := time.NewTicker(probeInterval)
	defer tick.Stop()
	for {
		b.mu.Lock()
		base := b.bases[i]
		b.mu.Unlock()
		ok := false
		if res, err := b.probe.Get(base + "/v1/system/health"); err == nil {
			io.Copy(io.Discard, res.Body) //nolint:errcheck // the status is the answer
			res.Body.Close()
			ok = res.StatusCode == http.StatusOK
		}
		if ok || !b.passive {
			b.set(i, base, ok)
		}
		select {
		case <-b.stop:
			return
		case <-tick.C:
		}
	}
}

// set records replica i's health, as seen at base.
func (b *balancer) set(i int, base string, up bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bases[i] != base || b.up[i] == up {
		return
	}
	b.up[i] = up
	if up {
		close(b.changed)
		b.changed = make(chan struct{})
	}
}

// replace points replica i at base, where it restarted; it gets requests
// once its health check passes.
func (b *balancer) replace(i int, base string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bases[i], b.up[i] = base, false
}

// waitUp waits until replica i is healthy.
func (b *balancer) waitUp(i int) {
	b.t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		b.mu.Lock()
		up, changed := b.up[i], b.changed
		b.mu.Unlock()
		if up {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			b.t.Fatalf("replica %d is not healthy after 2 minutes", i)
		}
	}
}

// pick returns the next healthy replica, waiting for one if none is.
func (b *balancer) pick() (int, string, error) {
	deadline := time.After(2 * time.Minute)
	for {
		b.mu.Lock()
		for k := range b.bases {
			if i := (b.next + k) % len(b.bases); b.up[i] {
				b.next = i + 1
				base := b.bases[i]
				b.mu.Unlock()
				return i, base, nil
			}
		}
		changed := b.changed
		b.mu.Unlock()
		select {
		case <-changed:
		case <-deadline:
			return 0, "", errors.New("no replica healthy for 2 minutes")
		}
	}
}

// total is the number of answers.
func (b *balancer) total() int64 {
	var n int64
	for i := range b.answered {
		n += b.answered[i].Load()
	}
	return n
}

// do sends a request through the balancer with token, and key as its
// Idempotency-Key when not empty, and returns the answer. It may run on
// any goroutine.
func (b *balancer) do(method, path, body, token, key string) (int, []byte, error) {
	for attempt := 1; ; attempt++ {
		i, base, err := b.pick()
		if err != nil {
			b.dropped.Add(1)
			return 0, nil, err
		}
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Authorization", "Bearer "+token)
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		code, answer, err := b.send(req)
		if err == nil {
			b.answered[i].Add(1)
			if code >= 500 {
				b.fiveXX.Add(1)
			}
			return code, answer, nil
		}
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			// Nothing was sent: safe on the next replica.
			b.refused.Add(1)
			b.set(i, base, false)
		case method == http.MethodGet || key != "":
			b.retried.Add(1)
			b.cuts.Store(fmt.Sprintf("%s %s: %v (sent again)", method, path, err), true)
		default:
			b.dropped.Add(1)
			b.cuts.Store(fmt.Sprintf("%s %s: %v (dropped)", method, path, err), true)
			return 0, nil, err
		}
		if attempt == 20 {
			b.dropped.Add(1)
			return 0, nil, fmt.Errorf("%s %s: no answer after %d attempts: %w", method, path, attempt, err)
		}
	}
}

// send sends req and reads the whole answer; an answer cut short is no
// answer.
func (b *balancer) send(req *http.Request) (int, []byte, error) {
	res, err := b.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, nil, err
	}
	return res.StatusCode, body, nil
}

// ledgerBook is what the test's clients know was paid: every payment
// answered as made, once each.
type ledgerBook struct {
	mu       sync.Mutex
	made     map[string]bool  // payment id → counted
	balances map[string]int64 // wallet → what its payments moved
}

// add counts payment id (amount plus fee from payer, amount to payee)
// once.
func (l *ledgerBook) add(id, payer, payee string, amount, fee int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.made[id] {
		return
	}
	l.made[id] = true
	l.balances[payer] -= amount + fee
	l.balances[payee] += amount
}

var followingRE = regexp.MustCompile(`msg="following the node"`)

// Two replicas on one PostgreSQL database behind a round-robin balancer,
// under internal payments from several clients (each payment with an
// Idempotency-Key): each replica in turn is sent SIGTERM, exits 0, and is
// started again. No request is answered 5xx, none is dropped (a refused
// connection is tried on the other replica, and a payment without an
// answer would be sent again with its key), the books balance, and every
// wallet holds its funding moved by the payments answered as made, each
// made exactly once. Twice: behind a balancer that checks health (503
// while draining) with shutdown.drain_delay forty checks long, and with
// clients that only try a refused connection elsewhere and no drain delay
// (the requests in flight finish; clients on keep-alive connections are
// answered, then reconnect).
func TestRollingRestartUnderLoad(t *testing.T) {
	t.Parallel()
	t.Run("health-checked balancer, drain delay", func(t *testing.T) {
		// The delay is forty of the balancer's health checks: it takes a
		// draining replica out long before the replica stops accepting.
		rollingRestart(t, storetest.EmptySchemaURL(t), "1s", false)
	})
	t.Run("clients retrying refused connections, no drain delay", func(t *testing.T) {
		rollingRestart(t, storetest.EmptySchemaURL(t), "0s", true)
	})
}

// rollingRestart restarts two replicas on the empty database dbURL, with
// shutdown.drain_delay drainDelay, in turn under load, through a balancer
// (passive: one that only takes out a replica that refuses a connection),
// and checks that nothing was lost.
func rollingRestart(t *testing.T, dbURL, drainDelay string, passive bool) {
	environ := []string{"HEARTH_DATABASE_URL=" + dbURL, "HEARTH_SHUTDOWN_DRAIN_DELAY=" + drainDelay}
	dirs := []string{t.TempDir(), t.TempDir()}
	start := func(i int) (*process, string) {
		p, c := serveProcess(t, append([]string{"HEARTH_DATA_DIR=" + dirs[i]}, environ...))
		return p, c.base
	}
	procs := make([]*process, 2)
	bases := make([]string, 2)
	for i := range procs {
		procs[i], bases[i] = start(i)
	}
	lb := newBalancer(t, passive, bases...)
	lb.waitUp(0)
	lb.waitUp(1)

	c := &client{t: t, base: bases[0], http: newHTTPClient(t)}
	token := signUp(t, c)
	const wallets, funds = 4, 1_000_000
	ids := make([]string, wallets)
	for i := range ids {
		ids[i] = createWallet(t, c, token, fmt.Sprintf("user%d", i))
		inv := createInvoice(t, c, token, ids[i], funds)
		c.expect(c.call("POST", "/v1/lightning-node/pay", fmt.Sprintf(`{"bolt11":%q}`, inv), token), 204)
	}
	c.http.CloseIdleConnections()

	book := &ledgerBook{made: map[string]bool{}, balances: map[string]int64{}}
	var paid, refusedForFunds, resent atomic.Int64
	var problems sync.Map // answers no restart explains, by text
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 11))
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				from, to := rng.IntN(wallets), rng.IntN(wallets-1)
				if to >= from {
					to++
				}
				payer, payee := ids[from], ids[to]
				if n%4 == 0 {
					if code, body, err := lb.do("GET", "/v1/wallets/"+payer, "", token, ""); err == nil && code != 200 {
						problems.Store(fmt.Sprintf("GET /v1/wallets/{id} = %d %s", code, body), true)
					}
				}
				code, body, err := lb.do("POST", "/v1/invoices", fmt.Sprintf(`{"wallet_id":%q,"amount_msat":%d}`, payee, 1+rng.Int64N(2_000)), token, "")
				if err != nil {
					continue // counted by the balancer
				}
				var inv struct {
					LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
				}
				if code != 201 || json.Unmarshal(body, &inv) != nil {
					problems.Store(fmt.Sprintf("POST /v1/invoices = %d %s", code, body), true)
					continue
				}
				key := fmt.Sprintf("rolling-%d-%d", g, n)
				payment := fmt.Sprintf(`{"wallet_id":%q,"input":%q}`, payer, inv.LnInvoice.Bolt11)
				code, body, err = lb.do("POST", "/v1/payments", payment, token, key)
				var p struct {
					ID         string `json:"id"`
					AmountMsat int64  `json:"amount_msat"`
					FeeMsat    int64  `json:"fee_msat"`
					Status     string `json:"status"`
				}
				switch {
				case err != nil:
					problems.Store(fmt.Sprintf("payment %s never answered: %v", key, err), true)
				case (code == 201 || code == 200) && json.Unmarshal(body, &p) == nil && p.Status == "Settled":
					// 200: a retry with the key answered the payment its
					// first request made.
					book.add(p.ID, payer, payee, p.AmountMsat, p.FeeMsat)
					paid.Add(1)
					if n%10 == 0 {
						// Sent again with its key, on the other replica as
						// likely as not: the same payment, not another.
						again, body, err := lb.do("POST", "/v1/payments", payment, token, key)
						var first struct{ ID string }
						if err == nil && (again != 200 || json.Unmarshal(body, &first) != nil || first.ID != p.ID) {
							problems.Store(fmt.Sprintf("payment %s sent again = %d %s, want 200 with payment %s", key, again, body, p.ID), true)
						}
						resent.Add(1)
					}
				case code == 422 && strings.Contains(string(body), "nsufficient"):
					refusedForFunds.Add(1)
				default:
					problems.Store(fmt.Sprintf("POST /v1/payments = %d %s", code, body), true)
				}
			}
		})
	}
	// waitFor waits until cond holds, failing after 3 minutes.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for !cond() {
			if time.Now().After(deadline) {
				close(stop)
				wg.Wait()
				t.Fatalf("waited 3 minutes for %s", what)
			}
			time.Sleep(10 * time.Millisecond) // polling the condition
		}
	}
	// through waits until replica i answered more requests of the load.
	through := func(i int, more int64) {
		t.Helper()
		target := lb.answered[i].Load() + more
		waitFor(fmt.Sprintf("%d answers from replica %d", more, i), func() bool { return lb.answered[i].Load() >= target })
	}

	through(0, 100)
	through(1, 100)
	var figures []string
	for i := range procs {
		through(i, 50) // the load flows through it
		other := procs[1-i]
		followed := len(followingRE.FindAllString(other.out.String(), -1))
		leader := followingRE.MatchString(procs[i].out.String())
		before, paidBefore := lb.total(), paid.Load()
		sent := time.Now()
		procs[i].signal(syscall.SIGTERM)
		code := procs[i].wait()
		if code != 0 {
			t.Errorf("replica %d exited %d after SIGTERM; output:\n%s", i, code, procs[i].out)
		}
		exited := time.Since(sent)
		out := procs[i].out.String()
		inFlight, finished, stopped := "?", "?", "?"
		if m := stoppedAcceptRE.FindStringSubmatch(out); m != nil {
			inFlight = m[1]
		}
		if m := requestsDoneRE.FindStringSubmatch(out); m != nil {
			finished = m[1]
		}
		if m := stoppedRE.FindStringSubmatch(out); m != nil {
			stopped = m[1]
		}
		takeover := "it did not follow the node"
		if leader {
			// It gave up the node-stream lock: the other replica follows
			// the node within its poll (5 s).
			waitFor("the other replica to follow the node", func() bool {
				return len(followingRE.FindAllString(other.out.String(), -1)) > followed
			})
			takeover = fmt.Sprintf("the other followed the node %s after the signal", time.Since(sent).Round(time.Millisecond))
		}
		var base string
		procs[i], base = start(i)
		lb.replace(i, base)
		lb.waitUp(i)
		through(i, 50)
		figures = append(figures, fmt.Sprintf("replica %d: SIGTERM → exit %d in %s (drain delay %s; %s requests in flight when it stopped accepting, finished in %s; whole stop %s); %s; back and healthy after %s; %d requests answered and %d payments made meanwhile",
			i, code, exited.Round(time.Millisecond), drainDelay, inFlight, finished, stopped, takeover, time.Since(sent).Round(time.Millisecond),
			lb.total()-before, paid.Load()-paidBefore))
	}
	close(stop)
	wg.Wait()

	for _, f := range figures {
		t.Log(f)
	}
	t.Logf("%d requests answered, %d payments made (%d sent again with their key), %d refused for funds; %d connections refused and tried elsewhere, %d requests without an answer sent again, %d dropped, %d answered 5xx",
		lb.total(), paid.Load(), resent.Load(), refusedForFunds.Load(), lb.refused.Load(), lb.retried.Load(), lb.dropped.Load(), lb.fiveXX.Load())
	lb.cuts.Range(func(k, _ any) bool {
		t.Logf("no answer: %s", k)
		return true
	})
	problems.Range(func(k, _ any) bool {
		t.Errorf("unexpected: %s", k)
		return true
	})
	if n := lb.fiveXX.Load(); n != 0 {
		t.Errorf("%d requests answered 5xx", n)
	}
	if n := lb.dropped.Load(); n != 0 {
		t.Errorf("%d requests dropped", n)
	}

	out := newSyncWriter()
	if err := run(context.Background(), []string{"ledger", "check"}, out, append([]string{"HEARTH_DATA_DIR=" + t.TempDir()}, environ...)); err != nil || !strings.Contains(out.String(), "every wallet balances") {
		t.Fatalf("ledger check: %v; %s", err, out)
	}
	db, err := store.Open(context.Background(), store.Options{PostgresURL: dbURL, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, id := range ids {
		var available, reserved int64
		if err := db.R.QueryRowContext(context.Background(),
			"SELECT available_msat, reserved_msat FROM wallets WHERE id = ?", id).Scan(&available, &reserved); err != nil {
			t.Fatal(err)
		}
		if want := funds + book.balances[id]; available != want || reserved != 0 {
			t.Errorf("wallet %s: %d msat available, %d reserved; want %d (funding %d, moved %d by the payments answered), 0",
				id, available, reserved, want, funds, book.balances[id])
		}
	}
	var settled, pending int64
	if err := db.R.QueryRowContext(context.Background(),
		"SELECT count(*) FILTER (WHERE status = 'Settled'), count(*) FILTER (WHERE status = 'Pending') FROM payments").Scan(&settled, &pending); err != nil {
		t.Fatal(err)
	}
	if settled != int64(len(book.made)) || pending != 0 {
		t.Errorf("%d payments settled in the database, %d answered as made; %d pending", settled, len(book.made), pending)
	}
}
