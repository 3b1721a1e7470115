package rates

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/fiat"
)

// The history of the rates: the replica that leads the plugin records the
// rate of every currency offered each refresh (Record), and a settled
// record is valued at the last rate recorded at or before it settled, if
// that rate was younger than max_age then: never at a stale price, and
// never at today's.

// historyRow is one rate recorded.
type historyRow struct {
	bun.BaseModel `bun:"table:rates_history"`
	Currency      string    `bun:"currency,pk"`
	At            time.Time `bun:"at,pk"`
	Rate          string    `bun:"rate"`
	Fixed         bool      `bun:"fixed"`
}

// Record records the rate of every currency in use that has a fresh one:
// set by hand, or asked for since the server started (an instance whose
// owners never read amounts in a currency reads no price source); a rate
// recorded already (the same reading) is kept once.
func (r *Rates) Record(ctx context.Context) error {
	rows := []historyRow{}
	for _, code := range r.inUse() {
		rate, err := r.Rate(ctx, code)
		if err != nil {
			continue // no fresh rate: none recorded, and records of now get no value
		}
		rows = append(rows, historyRow{Currency: rate.Currency, At: rate.At.UTC().Truncate(time.Microsecond), Rate: rate.Rate, Fixed: rate.Fixed})
	}
	if len(rows) == 0 {
		return nil
	}
	if _, err := r.db.W.NewInsert().Model(&rows).On("CONFLICT (currency, at) DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("recording the rates: %w", err)
	}
	return nil
}

// lead records the rates at once and every refresh until ctx ends
// (Builtin.Lead: one replica at a time).
func (r *Rates) lead(ctx context.Context, _ *host.Events) {
	tick := time.NewTicker(r.cfg.Refresh)
	defer tick.Stop()
	for {
		if err := r.Record(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("recording the rates", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// valueRecords values each settled record in its wallet's currency at the
// rate recorded when it settled (record:value).
func (r *Rates) valueRecords(ctx context.Context, vs []*ledger.Valuation) error {
	ids := make([]string, 0, len(vs))
	for _, v := range vs {
		ids = append(ids, v.WalletID)
	}
	of, err := r.currencies(ctx, ids)
	if err != nil {
		return err
	}
	type moment struct {
		currency string
		at       time.Time
	}
	rates := map[moment]*historyRow{} // one reading per moment, however many records settled in it
	for _, v := range vs {
		m := moment{of[v.WalletID], v.SettledAt.UTC().Truncate(time.Microsecond)}
		if m.currency == "" {
			continue
		}
		h, seen := rates[m]
		if !seen {
			if h, err = r.rateAt(ctx, m.currency, m.at); err != nil {
				return err
			}
			rates[m] = h
		}
		if h == nil {
			continue
		}
		amount, err := fiat.Amount(v.AmountMsat, h.Rate, h.Currency)
		if err != nil {
			return err
		}
		v.Value = &ledger.Fiat{Amount: amount, Currency: h.Currency, Rate: h.Rate, At: h.At, Fixed: h.Fixed}
	}
	return nil
}

// rateAt is the last rate of currency recorded at or before at, or nil
// when there is none younger than max_age then.
func (r *Rates) rateAt(ctx context.Context, currency string, at time.Time) (*historyRow, error) {
	var h historyRow
	err := r.db.R.NewSelect().Model(&h).Where("currency = ?", currency).Where("at <= ?", at).
		Where("at > ?", at.Add(-r.cfg.MaxAge)).OrderExpr("at DESC").Limit(1).Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the rate of %s at %s: %w", currency, at.Format(time.RFC3339), err)
	}
	return &h, nil
}

// inUse are the currencies offered that are set by hand or were asked for.
func (r *Rates) inUse() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, code := range r.cfg.Currencies {
		if _, fixed := r.cfg.Fixed[code]; fixed || r.byCu[code] != nil {
			out = append(out, code)
		}
	}
	return out
}
