package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
)

// operatorLoad is the workload of an A/B run, set up and driven over HTTP
// from this process as an operator's clients would: payer and payee
// wallets made by the admin, each with an API key, the payers funded
// through the embedded node as an outside payer, a pool of open invoices
// of the payees made up front, and clients that each pay from their payer
// invoices drawn at random from the pool.
type operatorLoad struct {
	inst      *instance
	o         abOptions
	http      *http.Client
	admin     string   // the admin's token
	payerKeys []string // client i pays with payerKeys[i]
	payeeKeys []string
	pool      []string     // bolt11s, shuffled
	next      atomic.Int64 // the pool's next invoice
	paid      []int64      // payments made by client i
	funded    int64        // msat each payer received
	pg        machine.Meter
	// answered, when set, is told the pool index of each invoice paid
	// once its payment's answer has come (signals.go).
	answered func(j int64)
}

// newOperatorLoad prepares inst: the admin, the wallets and keys, the
// funds, and every invoice the rounds will pay.
func newOperatorLoad(ctx context.Context, inst *instance, o abOptions, pg machine.Meter) (*operatorLoad, error) {
	l := &operatorLoad{inst: inst, o: o, pg: pg, paid: make([]int64, o.clients),
		http: &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	if err := l.call(ctx, "POST", "/v1/system/mark-welcome-complete", "", nil, nil); err != nil {
		return nil, err
	}
	var tok struct{ Token string }
	if err := l.call(ctx, "POST", "/v1/auth/sign-up", "", map[string]string{"password": "loadbench-" + fmt.Sprint(time.Now().UnixNano())}, &tok); err != nil {
		return nil, err
	}
	l.admin = "Bearer " + tok.Token
	var err error
	if l.payerKeys, err = l.wallets(ctx, "payer"); err != nil {
		return nil, err
	}
	if l.payeeKeys, err = l.wallets(ctx, "payee"); err != nil {
		return nil, err
	}
	l.funded = int64(o.rounds*o.perClient()) * load.PaymentMsat
	if err := l.parallel(o.clients, func(i int) error { return l.fund(ctx, i) }); err != nil {
		return nil, fmt.Errorf("funding the payers: %w", err)
	}
	l.pool = make([]string, o.rounds*o.perClient()*o.clients)
	err = l.parallel(len(l.pool), func(j int) error {
		var inv struct {
			LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
		}
		err := l.call(ctx, "POST", "/v1/me/invoices", l.payeeKeys[j%o.clients], map[string]int64{"amount_msat": load.PaymentMsat}, &inv)
		l.pool[j] = inv.LnInvoice.Bolt11
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("creating invoices: %w", err)
	}
	rand.Shuffle(len(l.pool), func(i, j int) { l.pool[i], l.pool[j] = l.pool[j], l.pool[i] })
	return l, nil
}

// wallets makes o.clients wallets for users named role-NNN, each with an
// API key that may read it and pay from it, and returns the keys.
func (l *operatorLoad) wallets(ctx context.Context, role string) ([]string, error) {
	keys := make([]string, l.o.clients)
	err := l.parallel(l.o.clients, func(i int) error {
		user := fmt.Sprintf("%s-%03d", role, i)
		if err := l.call(ctx, "POST", "/v1/wallets", l.admin, map[string]string{"user_id": user}, nil); err != nil {
			return err
		}
		var k struct{ Key string }
		err := l.call(ctx, "POST", "/v1/api-keys", l.admin, map[string]any{"user_id": user, "name": "loadbench",
			"permissions": []string{"read:wallet", "read:transaction", "write:transaction"}}, &k)
		keys[i] = k.Key
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("making the %ss: %w", role, err)
	}
	return keys, nil
}

// fund pays l.funded into payer i from the embedded node, as an outside
// payer would.
func (l *operatorLoad) fund(ctx context.Context, i int) error {
	var inv struct {
		LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
	}
	if err := l.call(ctx, "POST", "/v1/me/invoices", l.payerKeys[i], map[string]int64{"amount_msat": l.funded}, &inv); err != nil {
		return err
	}
	return l.call(ctx, "POST", "/v1/lightning-node/pay", l.admin, map[string]string{"bolt11": inv.LnInvoice.Bolt11}, nil)
}

// phase runs one measured phase: warm-up and measured payments per client,
// flat out (rate 0) or at rate a second in all. Each payment takes the
// pool's next invoice, so that a client pays payees at random.
func (l *operatorLoad) phase(name string, warm, measured int, rate float64) (load.Result, error) {
	host := strings.TrimPrefix(l.inst.base, "http://")
	// Each phase opens its clients' keep-alive connections: one kept from
	// an earlier phase may have idled past the server's timeout since.
	conns := make([]*load.Conn, l.o.clients)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i := range conns {
		c, err := load.Dial(host)
		if err != nil {
			return load.Result{}, err
		}
		conns[i] = c
	}
	meter := func() machine.Reading { return machine.Reading{Self: l.inst.cpu(), PG: l.pg.Read().PG} }
	r, err := load.Drive(name, l.o.clients, warm, measured, rate, meter, func(i, _ int) error {
		j := l.next.Add(1) - 1
		if j >= int64(len(l.pool)) {
			return fmt.Errorf("the pool's %d invoices are spent", len(l.pool))
		}
		if err := conns[i].Pay(host, l.payerKeys[i], l.pool[j]); err != nil {
			return err
		}
		if l.answered != nil {
			l.answered(j)
		}
		l.paid[i]++
		return nil
	})
	r.PGCPU = l.pg.MeasuresPostgres()
	return r, err
}

// verify checks the books through the API: each payer holds what it was
// funded less what it paid, and the payees together what was paid.
func (l *operatorLoad) verify(ctx context.Context) error {
	var total, received int64
	for i := range l.o.clients {
		var b struct {
			Available int64 `json:"available_msat"`
		}
		if err := l.call(ctx, "GET", "/v1/me/balance", l.payerKeys[i], nil, &b); err != nil {
			return err
		}
		if want := l.funded - l.paid[i]*load.PaymentMsat; b.Available != want {
			return fmt.Errorf("%s: payer %d holds %d msat, want %d", l.inst.build.label, i, b.Available, want)
		}
		total += l.paid[i] * load.PaymentMsat
		if err := l.call(ctx, "GET", "/v1/me/balance", l.payeeKeys[i], nil, &b); err != nil {
			return err
		}
		received += b.Available
	}
	if received != total {
		return fmt.Errorf("%s: the payees hold %d msat, the payers paid %d", l.inst.build.label, received, total)
	}
	return nil
}

// close closes the set-up's idle connections.
func (l *operatorLoad) close() { l.http.CloseIdleConnections() }

// parallel runs do(0..n-1) from eight goroutines and returns the first
// error; after it the rest are skipped.
func (l *operatorLoad) parallel(n int, do func(int) error) error {
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		first atomic.Pointer[error]
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := do(i); err != nil {
					first.CompareAndSwap(nil, &err)
				}
			}
		}()
	}
	wg.Wait()
	if p := first.Load(); p != nil {
		return *p
	}
	return nil
}

// call sends a JSON request with credential (a "Bearer …" token or an API
// key) and decodes a 2xx answer into out.
func (l *operatorLoad) call(ctx context.Context, method, path, credential string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, l.inst.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	switch {
	case strings.HasPrefix(credential, "Bearer "):
		req.Header.Set("Authorization", credential)
	case credential != "":
		req.Header.Set("Api-Key", credential)
	}
	resp, err := l.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s = %d: %s", method, path, resp.StatusCode, got)
	}
	if out != nil {
		if err := json.Unmarshal(got, out); err != nil {
			return fmt.Errorf("%s %s: decoding %s: %w", method, path, got, err)
		}
	}
	return nil
}
