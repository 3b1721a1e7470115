package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// loggedPayment is one internal payment a load made, as its client saw it.
type loggedPayment struct {
	id             string // the payment's id; "" unless answered 201
	from, to       int    // wallets, by index
	msat           int64
	sent, answered time.Time
}

// paymentLoad makes internal payments between wallets from several
// clients at once, and logs each.
type paymentLoad struct {
	c       *client
	token   string
	wallets []string

	mu   sync.Mutex
	log  []loggedPayment
	bad  []string // answers no balance explains
	more chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup
}

// startLoad starts clients goroutines paying between wallets through c.
func startLoad(c *client, token string, wallets []string, clients int) *paymentLoad {
	l := &paymentLoad{c: c, token: token, wallets: wallets, more: make(chan struct{}, 1), stop: make(chan struct{})}
	for g := range clients {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 11))
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				from, to := rng.IntN(len(wallets)), rng.IntN(len(wallets)-1)
				if to >= from {
					to++
				}
				l.pay(from, to, 1+rng.Int64N(5_000))
			}
		}()
	}
	return l
}

// pay makes one payment and logs it.
func (l *paymentLoad) pay(from, to int, msat int64) {
	p := loggedPayment{from: from, to: to, msat: msat}
	code, body, err := l.c.try("POST", "/v1/invoices", fmt.Sprintf(`{"wallet_id":%q,"amount_msat":%d}`, l.wallets[to], msat), l.token)
	var inv struct {
		LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
	}
	if err != nil || code != 201 || json.Unmarshal(body, &inv) != nil {
		l.problem(fmt.Sprintf("POST /v1/invoices = %d %s %v", code, body, err))
		return
	}
	p.sent = time.Now()
	code, body, err = l.c.try("POST", "/v1/payments", fmt.Sprintf(`{"wallet_id":%q,"input":%q}`, l.wallets[from], inv.LnInvoice.Bolt11), l.token)
	p.answered = time.Now()
	var paid struct{ ID, Status string }
	switch {
	case err == nil && code == 201 && json.Unmarshal(body, &paid) == nil && paid.Status == "Settled":
		p.id = paid.ID
	case err == nil && code == 422 && bytes.Contains(body, []byte("nsufficient")):
		return // a refusal moves nothing
	default:
		l.problem(fmt.Sprintf("POST /v1/payments = %d %s %v", code, body, err))
		return
	}
	l.mu.Lock()
	l.log = append(l.log, p)
	l.mu.Unlock()
	select {
	case l.more <- struct{}{}:
	default:
	}
}

func (l *paymentLoad) problem(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bad = append(l.bad, s)
}

// paid is how many payments were made so far.
func (l *paymentLoad) paid() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.log)
}

// waitPaid waits until n more payments than now were made.
func (l *paymentLoad) waitPaid(t *testing.T, n int) {
	t.Helper()
	target := l.paid() + n
	deadline := time.After(3 * time.Minute)
	for l.paid() < target {
		select {
		case <-l.more:
		case <-deadline:
			t.Fatalf("the load made %d of %d payments in 3 minutes", l.paid(), target)
		}
	}
}

// end stops the load, fails the test on any answer no balance explains,
// and returns the log.
func (l *paymentLoad) end(t *testing.T) []loggedPayment {
	t.Helper()
	close(l.stop)
	l.wg.Wait()
	for _, b := range l.bad {
		t.Errorf("unexpected answer: %s", b)
	}
	return l.log
}

// runHearth runs `hearth args…` as an operator would, a process of its
// own, to its end; it fails the test unless the process succeeds.
func runHearth(t *testing.T, environ []string, args ...string) string {
	t.Helper()
	p := startProcess(t, environ, args...)
	<-p.done
	if p.err != nil {
		t.Fatalf("hearth %v: %v; output:\n%s", args, p.err, p.out)
	}
	return p.out.String()
}

// failHearth runs `hearth args…` like runHearth, and fails the test unless
// the process fails; it returns the output.
func failHearth(t *testing.T, environ []string, args ...string) string {
	t.Helper()
	p := startProcess(t, environ, args...)
	<-p.done
	var exit *exec.ExitError
	if p.err == nil || !errors.As(p.err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("hearth %v: exit %v, want status 1; output:\n%s", args, p.err, p.out)
	}
	return p.out.String()
}
