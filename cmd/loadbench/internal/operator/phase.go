package operator

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
)

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
