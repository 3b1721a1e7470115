package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
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

type hookRow struct {
	bun.BaseModel  `bun:"table:webhooks"`
	ID             string     `bun:"id,pk"`
	WalletID       string     `bun:"wallet_id"`
	URL            string     `bun:"url"`
	Events         string     `bun:"events"` // space-separated
	Description    *string    `bun:"description"`
	Secret         string     `bun:"secret"`
	Active         bool       `bun:"active"`
	DisabledReason *string    `bun:"disabled_reason"`
	FailingSince   *time.Time `bun:"failing_since"`
	NextAt         *time.Time `bun:"next_at"` // the head of its queue is due; nil: nothing queued
	CreatedAt      time.Time  `bun:"created_at"`
}

func (r *hookRow) api() *Webhook {
	return &Webhook{ID: r.ID, WalletID: r.WalletID, URL: r.URL, Events: strings.Fields(r.Events),
		Description: r.Description, Active: r.Active, DisabledReason: r.DisabledReason, CreatedAt: r.CreatedAt.UTC()}
}

func (r *hookRow) wants(typ string) bool {
	for _, t := range strings.Fields(r.Events) {
		if t == typ {
			return true
		}
	}
	return false
}

// The states of a delivery.
const (
	pending   = "pending"
	delivered = "delivered"
	givenUp   = "failed"
)

type deliveryRow struct {
	bun.BaseModel `bun:"table:webhook_deliveries,alias:d"`
	ID            int64     `bun:"id,pk,autoincrement"`
	WebhookID     string    `bun:"webhook_id"`
	EventID       int64     `bun:"event_id"`
	Body          string    `bun:"body"`
	State         string    `bun:"state"`
	Attempts      int       `bun:"attempts"`
	NextAt        time.Time `bun:"next_at"`
	CreatedAt     time.Time `bun:"created_at"`
}

type attemptRow struct {
	bun.BaseModel `bun:"table:webhook_attempts"`
	WebhookID     string    `bun:"webhook_id,pk"`
	EventID       int64     `bun:"event_id,pk"`
	Attempt       int       `bun:"attempt,pk"`
	StatusCode    *int      `bun:"status_code"`
	Error         *string   `bun:"error"`
	DurationMS    int64     `bun:"duration_ms"`
	At            time.Time `bun:"at"`
}

// insertHook stores a new webhook, unless its wallet has max already.
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
		return nil
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

// deleteHook removes a webhook with its queue and attempts.
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
		if _, err := tx.NewDelete().Model((*deliveryRow)(nil)).Where("webhook_id = ?", id).Exec(ctx); err != nil {
			return fmt.Errorf("deleting deliveries: %w", err)
		}
		if _, err := tx.NewDelete().Model((*attemptRow)(nil)).Where("webhook_id = ?", id).Exec(ctx); err != nil {
			return fmt.Errorf("deleting attempts: %w", err)
		}
		return nil
	})
}

// attempts lists a webhook's attempts, newest first.
func (p *Plugin) attempts(ctx context.Context, id string, limit int) ([]Attempt, error) {
	var rs []attemptRow
	err := p.db.R.NewSelect().Model(&rs).Where("webhook_id = ?", id).
		OrderExpr("at DESC, event_id DESC, attempt DESC").Limit(limit).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing attempts: %w", err)
	}
	out := make([]Attempt, len(rs))
	for i, r := range rs {
		out[i] = Attempt{EventID: r.EventID, Attempt: r.Attempt, StatusCode: r.StatusCode, Error: r.Error,
			DurationMS: r.DurationMS, At: r.At.UTC()}
	}
	return out, nil
}

// queue adds deliveries, due at once when they head their webhook's
// queue; one already queued for its webhook and event is left as it is.
//
// The webhooks' rows are updated first, which locks them: record, which
// locks its webhook's row before it looks for what is left in the queue,
// then sees these deliveries, or runs before and leaves next_at NULL for
// this update to set (on SQLite transactions never overlap).
func (p *Plugin) queue(ctx context.Context, ds []deliveryRow) error {
	if len(ds) == 0 {
		return nil
	}
	var ids []string
	for _, d := range ds {
		if !slices.Contains(ids, d.WebhookID) {
			ids = append(ids, d.WebhookID)
		}
	}
	sort.Strings(ids) // one order of locks
	err := p.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewUpdate().Model((*hookRow)(nil)).Set("next_at = COALESCE(next_at, ?)", ds[0].NextAt).
			Where("id IN (?)", bun.In(ids)).Exec(ctx)
		if err != nil {
			return err
		}
		_, err = tx.NewInsert().Model(&ds).ExcludeColumn("id").On("CONFLICT (webhook_id, event_id) DO NOTHING").Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("queueing deliveries: %w", err)
	}
	return nil
}

// activeHooks returns the active webhooks of the wallets.
func (p *Plugin) activeHooks(ctx context.Context, wallets []string) ([]hookRow, error) {
	var rs []hookRow
	err := p.db.R.NewSelect().Model(&rs).Where("wallet_id IN (?)", bun.In(wallets)).Where("active = ?", true).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading webhooks: %w", err)
	}
	return rs, nil
}

// anyActive reports whether any webhook is active.
func (p *Plugin) anyActive(ctx context.Context) (bool, error) {
	ok, err := p.db.R.NewSelect().Model((*hookRow)(nil)).Where("active = ?", true).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("looking for active webhooks: %w", err)
	}
	return ok, nil
}

// due returns up to limit deliveries that head the queue of an active
// webhook and are due at now, leaving out the webhooks in skip.
func (p *Plugin) due(ctx context.Context, now time.Time, skip map[string]bool, limit int) ([]deliveryRow, error) {
	var hooks []string
	err := p.db.R.NewSelect().Model((*hookRow)(nil)).Column("id").
		Where("next_at <= ?", now).Where("active = ?", true).
		OrderExpr("next_at").Limit(limit+len(skip)).Scan(ctx, &hooks)
	if err != nil {
		return nil, fmt.Errorf("reading due webhooks: %w", err)
	}
	var out []deliveryRow
	for _, id := range hooks {
		if skip[id] || len(out) == limit {
			continue
		}
		var d deliveryRow
		err := p.db.R.NewSelect().Model(&d).Where("webhook_id = ?", id).Where("state = ?", pending).
			OrderExpr("id").Limit(1).Scan(ctx)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if err := p.settle(ctx, id, now); err != nil {
				return out, err
			}
		case err != nil:
			return out, fmt.Errorf("reading a webhook's queue: %w", err)
		default:
			out = append(out, d)
		}
	}
	return out, nil
}

// lockHook locks a webhook's row until tx ends, on PostgreSQL (SQLite's
// transactions never overlap).
func (p *Plugin) lockHook(ctx context.Context, tx bun.Tx, id string) error {
	if p.db.Dialect != store.Postgres {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM webhooks WHERE id = ? FOR UPDATE", id); err != nil {
		return fmt.Errorf("locking webhook: %w", err)
	}
	return nil
}

// headAt sets a webhook's next_at after its head left the queue: now when
// more deliveries wait, else NULL. The caller holds the row's lock.
func headAt(ctx context.Context, tx bun.Tx, id string, now time.Time) error {
	more, err := tx.NewSelect().Model((*deliveryRow)(nil)).Where("webhook_id = ?", id).Where("state = ?", pending).Exists(ctx)
	if err != nil {
		return fmt.Errorf("reading a webhook's queue: %w", err)
	}
	var next *time.Time
	if more {
		next = &now
	}
	_, err = tx.NewUpdate().Model((*hookRow)(nil)).Set("next_at = ?", next).Where("id = ?", id).Exec(ctx)
	return err
}

// settle puts a webhook's next_at right when its queue is empty.
func (p *Plugin) settle(ctx context.Context, id string, now time.Time) error {
	return p.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := p.lockHook(ctx, tx, id); err != nil {
			return err
		}
		return headAt(ctx, tx, id, now)
	})
}

// outcome is what one attempt gave.
type outcome struct {
	status   *int
	err      *string
	duration time.Duration
	at       time.Time
	ok       bool
}

// record stores an attempt and moves the delivery and its webhook on:
// delivered; or retried at next; or given up when next is past the retry
// window; and the webhook disabled when it has failed for DisableAfter.
func (p *Plugin) record(ctx context.Context, d *deliveryRow, o outcome, next time.Time) error {
	return p.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := p.lockHook(ctx, tx, d.WebhookID); err != nil {
			return err
		}
		a := &attemptRow{WebhookID: d.WebhookID, EventID: d.EventID, Attempt: d.Attempts + 1, StatusCode: o.status,
			Error: o.err, DurationMS: o.duration.Milliseconds(), At: o.at}
		if _, err := tx.NewInsert().Model(a).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
			return fmt.Errorf("recording attempt: %w", err)
		}
		up := tx.NewUpdate().Model((*deliveryRow)(nil)).Set("attempts = ?", d.Attempts+1).
			Where("id = ?", d.ID).Where("state = ?", pending)
		retry := !o.ok && next.Sub(d.CreatedAt) <= p.cfg.RetryWindow
		switch {
		case o.ok:
			up = up.Set("state = ?", delivered)
		case retry:
			up = up.Set("next_at = ?", next)
		default:
			up = up.Set("state = ?", givenUp)
		}
		if _, err := up.Exec(ctx); err != nil {
			return fmt.Errorf("updating delivery: %w", err)
		}
		if retry { // the same head, later
			_, err := tx.NewUpdate().Model((*hookRow)(nil)).Set("next_at = ?", next).Where("id = ?", d.WebhookID).Exec(ctx)
			if err != nil {
				return fmt.Errorf("updating webhook: %w", err)
			}
		} else if err := headAt(ctx, tx, d.WebhookID, o.at); err != nil {
			return fmt.Errorf("updating webhook: %w", err)
		}
		if o.ok {
			_, err := tx.NewUpdate().Model((*hookRow)(nil)).Set("failing_since = NULL").
				Where("id = ?", d.WebhookID).Where("failing_since IS NOT NULL").Exec(ctx)
			return err
		}
		if _, err := tx.NewUpdate().Model((*hookRow)(nil)).Set("failing_since = ?", o.at).
			Where("id = ?", d.WebhookID).Where("failing_since IS NULL").Exec(ctx); err != nil {
			return fmt.Errorf("marking webhook failing: %w", err)
		}
		last := "no answer"
		if o.err != nil {
			last = *o.err
		}
		reason := fmt.Sprintf("Disabled after failing for %s without a successful delivery; last error: %s",
			p.cfg.DisableAfter, last)
		_, err := tx.NewUpdate().Model((*hookRow)(nil)).Set("active = ?", false).Set("disabled_reason = ?", reason).Set("next_at = NULL").
			Where("id = ?", d.WebhookID).Where("active = ?", true).
			Where("failing_since <= ?", o.at.Add(-p.cfg.DisableAfter)).Exec(ctx)
		if err != nil {
			return fmt.Errorf("disabling webhook: %w", err)
		}
		return nil
	})
}

// prune deletes the deliveries done before now-keepDone and the attempts
// made before now-keepAttempts.
func (p *Plugin) prune(ctx context.Context, now time.Time) error {
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewDelete().Model((*deliveryRow)(nil)).Where("state <> ?", pending).
			Where("created_at < ?", now.Add(-keepDone)).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("pruning deliveries: %w", err)
	}
	_, err = p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewDelete().Model((*attemptRow)(nil)).Where("at < ?", now.Add(-keepAttempts)).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("pruning attempts: %w", err)
	}
	return nil
}
