// Package operator is the workload loadbench drives a `hearth serve`
// process with (internal/hearthbin), set up and paid over HTTP from
// loadbench's own process as an operator's clients would: payer and payee
// wallets made by the admin, each with an API key, the payers funded
// through the embedded node as an outside payer, a pool of open invoices
// of the payees made up front, and clients that each pay from their payer
// invoices drawn at random from the pool.
package operator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
)

// Server is what a load needs of the server it drives: a `hearth serve`
// process (hearthbin.Server).
type Server interface {
	Base() string       // http://host:port
	CPU() time.Duration // the processor time its process has used
	Label() string      // which build it runs, for errors
}

// Load is an operator's workload on one server.
type Load struct {
	srv       Server
	clients   int
	http      *http.Client
	admin     string   // the admin's token, "Bearer …"
	payerKeys []string // client i pays with payerKeys[i]
	payeeKeys []string
	pool      []string     // bolt11s, shuffled
	next      atomic.Int64 // the pool's next invoice
	paid      []int64      // payments made by client i
	funded    int64        // msat each payer received
	pg        machine.Meter
	// answered, when set, is told the pool index of each invoice paid
	// once its payment's answer has come.
	answered func(j int64)
}

// New prepares srv for clients clients that make perClient payments each
// in all: the admin, the wallets and keys, the funds, and every invoice.
// pg reads the processor time of the database's server, when it is a
// local PostgreSQL.
func New(ctx context.Context, srv Server, clients, perClient int, pg machine.Meter) (*Load, error) {
	l := Attach(srv, clients, nil, nil, &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}, pg)
	if err := l.Call(ctx, "POST", "/v1/system/mark-welcome-complete", "", nil, nil); err != nil {
		return nil, err
	}
	var tok struct{ Token string }
	if err := l.Call(ctx, "POST", "/v1/auth/sign-up", "", map[string]string{"password": "loadbench-" + fmt.Sprint(time.Now().UnixNano())}, &tok); err != nil {
		return nil, err
	}
	l.admin = "Bearer " + tok.Token
	var err error
	if l.payerKeys, err = l.Wallets(ctx, "payer"); err != nil {
		return nil, err
	}
	if l.payeeKeys, err = l.Wallets(ctx, "payee"); err != nil {
		return nil, err
	}
	l.funded = int64(perClient) * load.PaymentMsat
	if err := l.Parallel(clients, func(i int) error { return l.fund(ctx, i) }); err != nil {
		return nil, fmt.Errorf("funding the payers: %w", err)
	}
	if err := l.MakePool(ctx, perClient*clients); err != nil {
		return nil, err
	}
	return l, nil
}

// Attach is the workload of clients clients on srv, whose wallets are made
// already, with payerKeys and payeeKeys (nil: none yet), through client.
// The admin signs in with SignIn.
func Attach(srv Server, clients int, payerKeys, payeeKeys []string, client *http.Client, pg machine.Meter) *Load {
	return &Load{srv: srv, clients: clients, http: client, payerKeys: payerKeys, payeeKeys: payeeKeys, pg: pg, paid: make([]int64, clients)}
}

// SignIn signs the admin in with password.
func (l *Load) SignIn(ctx context.Context, password string) error {
	var tok struct{ Token string }
	if err := l.Call(ctx, "POST", "/v1/auth/sign-in", "", map[string]string{"password": password}, &tok); err != nil {
		return err
	}
	l.admin = "Bearer " + tok.Token
	return nil
}

// Wallets makes a wallet for each client, for users named role-NNN, each
// with an API key that may read it and pay from it, and returns the keys.
func (l *Load) Wallets(ctx context.Context, role string) ([]string, error) {
	keys := make([]string, l.clients)
	err := l.Parallel(l.clients, func(i int) error {
		user := fmt.Sprintf("%s-%03d", role, i)
		if err := l.Call(ctx, "POST", "/v1/wallets", l.admin, map[string]string{"user_id": user}, nil); err != nil {
			return err
		}
		var k struct{ Key string }
		err := l.Call(ctx, "POST", "/v1/api-keys", l.admin, map[string]any{"user_id": user, "name": "loadbench",
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
func (l *Load) fund(ctx context.Context, i int) error {
	var inv struct {
		LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
	}
	if err := l.Call(ctx, "POST", "/v1/me/invoices", l.payerKeys[i], map[string]int64{"amount_msat": l.funded}, &inv); err != nil {
		return err
	}
	return l.Call(ctx, "POST", "/v1/lightning-node/pay", l.admin, map[string]string{"bolt11": inv.LnInvoice.Bolt11}, nil)
}

// MakePool has the payees make n invoices of load.PaymentMsat, payee
// j%clients the j-th, over HTTP, and shuffles them: the pool the phases
// pay from, from its start.
func (l *Load) MakePool(ctx context.Context, n int) error {
	l.pool = make([]string, n)
	l.next.Store(0)
	err := l.Parallel(n, func(j int) error {
		var inv struct {
			LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
		}
		err := l.Call(ctx, "POST", "/v1/me/invoices", l.payeeKeys[j%l.clients], map[string]int64{"amount_msat": load.PaymentMsat}, &inv)
		l.pool[j] = inv.LnInvoice.Bolt11
		return err
	})
	if err != nil {
		return fmt.Errorf("creating invoices: %w", err)
	}
	rand.Shuffle(n, func(i, j int) { l.pool[i], l.pool[j] = l.pool[j], l.pool[i] })
	return nil
}

// Admin is the admin's credential, "Bearer …".
func (l *Load) Admin() string { return l.admin }

// PayerKeys are the payers' API keys, client i's the i-th.
func (l *Load) PayerKeys() []string { return l.payerKeys }

// PayeeKeys are the payees' API keys.
func (l *Load) PayeeKeys() []string { return l.payeeKeys }

// Pool is the pool's invoices (bolt11s), in the order they are paid.
func (l *Load) Pool() []string { return l.pool }

// Next is the pool index of the next invoice to be paid.
func (l *Load) Next() int64 { return l.next.Load() }

// OnAnswered has answered told the pool index of each invoice paid, once
// its payment's answer has come.
func (l *Load) OnAnswered(answered func(j int64)) { l.answered = answered }

// Close closes the set-up's idle connections.
func (l *Load) Close() { l.http.CloseIdleConnections() }

// Phase runs one measured phase: warm-up and measured payments per client,
// flat out (rate 0) or at rate a second in all. Each payment takes the
// pool's next invoice, so that a client pays payees at random.
func (l *Load) Phase(name string, warm, measured int, rate float64) (load.Result, error) {
	host := strings.TrimPrefix(l.srv.Base(), "http://")
	// Each phase opens its clients' keep-alive connections: one kept from
	// an earlier phase may have idled past the server's timeout since.
	conns := make([]*load.Conn, l.clients)
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
			return load.Result{}, fmt.Errorf("connecting: %w", err)
		}
		conns[i] = c
	}
	meter := func() machine.Reading { return machine.Reading{Self: l.srv.CPU(), PG: l.pg.Read().PG} }
	r, err := load.Drive(name, l.clients, warm, measured, rate, meter, func(i, _ int) error {
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

// Verify checks the books through the API: each payer holds what it was
// funded less what it paid, and the payees together what was paid.
func (l *Load) Verify(ctx context.Context) error {
	var total, received int64
	label := l.srv.Label()
	for i := range l.clients {
		var b struct {
			Available int64 `json:"available_msat"`
		}
		if err := l.Call(ctx, "GET", "/v1/me/balance", l.payerKeys[i], nil, &b); err != nil {
			return err
		}
		if want := l.funded - l.paid[i]*load.PaymentMsat; b.Available != want {
			return fmt.Errorf("%s: payer %d holds %d msat, want %d", label, i, b.Available, want)
		}
		total += l.paid[i] * load.PaymentMsat
		if err := l.Call(ctx, "GET", "/v1/me/balance", l.payeeKeys[i], nil, &b); err != nil {
			return err
		}
		received += b.Available
	}
	if received != total {
		return fmt.Errorf("%s: the payees hold %d msat, the payers paid %d", label, received, total)
	}
	return nil
}
