package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
)

// Webhook is a webhook as the API shows it. Secret is set only in the
// answer that creates it.
type Webhook struct {
	ID             string    `json:"id"`
	WalletID       string    `json:"wallet_id"`
	URL            string    `json:"url"`
	Events         []string  `json:"events"`
	Description    *string   `json:"description,omitempty"`
	Active         bool      `json:"active"`
	DisabledReason *string   `json:"disabled_reason,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	// Secret keys the signatures; shown once, at creation.
	Secret string `json:"secret,omitempty"`
}

// Attempt is one delivery attempt, as GET …/deliveries shows it.
type Attempt struct {
	EventID    int64     `json:"event_id"`
	Attempt    int       `json:"attempt"`
	StatusCode *int      `json:"status_code,omitempty"`
	Error      *string   `json:"error,omitempty"`
	DurationMS int64     `json:"duration_ms"`
	At         time.Time `json:"at"`
}

// ErrNotFound is an unknown webhook, or another wallet's on /v1/me.
var ErrNotFound = fault.New(fault.NotFound, "webhook_not_found", "Webhook not found")

// hookRow is a webhook as the plugin keeps it; its delivery (the cursor,
// retries, whether it is active) is the host's event stream of the same
// key (host.Caller.OpenStream).
type hookRow struct {
	bun.BaseModel `bun:"table:webhooks"`
	ID            string    `bun:"id,pk"`
	WalletID      string    `bun:"wallet_id"`
	URL           string    `bun:"url"`
	Events        string    `bun:"events"` // space-separated
	Description   *string   `bun:"description"`
	Secret        string    `bun:"secret"`
	CreatedAt     time.Time `bun:"created_at"`
}

// api is the record of r, its stream in state st.
func (r *hookRow) api(st host.StreamState) *Webhook {
	return &Webhook{ID: r.ID, WalletID: r.WalletID, URL: r.URL, Events: strings.Fields(r.Events),
		Description: r.Description, Active: st.Active, DisabledReason: st.DisabledReason, CreatedAt: r.CreatedAt.UTC()}
}

// records are the records of rs, with their streams' states.
func (p *Plugin) records(ctx context.Context, rs []hookRow) ([]*Webhook, error) {
	ids := make([]string, len(rs))
	for i := range rs {
		ids[i] = rs[i].ID
	}
	states, err := p.host.StreamStates(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*Webhook, len(rs))
	for i := range rs {
		out[i] = rs[i].api(states[rs[i].ID])
	}
	return out, nil
}

// record is the record of r, with its stream's state.
func (p *Plugin) record(ctx context.Context, r *hookRow) (*Webhook, error) {
	ws, err := p.records(ctx, []hookRow{*r})
	if err != nil {
		return nil, err
	}
	return ws[0], nil
}

// insertHook stores a new webhook and opens its stream, unless its wallet
// has max already.
func (p *Plugin) insertHook(ctx context.Context, r *hookRow, max int) error {
	return p.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n, err := tx.NewSelect().Model((*hookRow)(nil)).Where("wallet_id = ?", r.WalletID).Count(ctx)
		if err != nil {
			return fmt.Errorf("counting webhooks: %w", err)
		}
		if n >= max {
			return fault.Unprocessablef("too_many_webhooks", "A wallet has at most %d webhooks", max)
		}
		if _, err := tx.NewInsert().Model(r).Exec(ctx); err != nil {
			return fmt.Errorf("inserting webhook: %w", err)
		}
		return p.host.OpenStream(ctx, tx, host.StreamSpec{Key: r.ID, WalletID: r.WalletID, Types: strings.Fields(r.Events),
			URL: r.URL, Secret: r.Secret})
	})
}

// hook reads a webhook; walletID "" for any wallet's.
func (p *Plugin) hook(ctx context.Context, id, walletID string) (*hookRow, error) {
	var r hookRow
	q := p.db.R.NewSelect().Model(&r).Where("id = ?", id)
	if walletID != "" {
		q = q.Where("wallet_id = ?", walletID)
	}
	if err := q.Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("reading webhook: %w", err)
	}
	return &r, nil
}

// hooks lists webhooks, newest first; walletID "" for every wallet's.
func (p *Plugin) hooks(ctx context.Context, walletID string, page store.Page) ([]hookRow, error) {
	var rs []hookRow
	q := p.db.R.NewSelect().Model(&rs)
	if walletID != "" {
		q = q.Where("wallet_id = ?", walletID)
	}
	if err := page.Apply(q).Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing webhooks: %w", err)
	}
	return rs, nil
}

// deleteHook removes a webhook with its stream.
func (p *Plugin) deleteHook(ctx context.Context, id, walletID string) error {
	return p.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewDelete().Model((*hookRow)(nil)).Where("id = ?", id)
		if walletID != "" {
			q = q.Where("wallet_id = ?", walletID)
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return fmt.Errorf("deleting webhook: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return p.host.CloseStream(ctx, tx, id)
	})
}

// attempts lists a webhook's attempts, newest first.
func (p *Plugin) attempts(ctx context.Context, id string, limit int) ([]Attempt, error) {
	as, err := p.host.StreamAttempts(ctx, id, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Attempt, len(as))
	for i, a := range as {
		out[i] = Attempt{EventID: a.EventID, Attempt: a.Attempt, StatusCode: a.StatusCode, Error: a.Error,
			DurationMS: a.DurationMS, At: a.At}
	}
	return out, nil
}
