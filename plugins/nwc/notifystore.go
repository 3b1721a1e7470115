package nwc

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// The states of a notification on a relay.
const (
	pending   = "pending"
	published = "published"
	givenUp   = "failed"
)

type notifyRow struct {
	bun.BaseModel `bun:"table:nwc_notifications,alias:n"`
	ConnectionID  string     `bun:"connection_id,pk"`
	EventID       int64      `bun:"event_id,pk"`
	Relay         string     `bun:"relay,pk"`
	Events        string     `bun:"events"`
	State         string     `bun:"state"`
	Attempts      int        `bun:"attempts"`
	NextAt        time.Time  `bun:"next_at"`
	LastError     *string    `bun:"last_error"`
	PublishedAt   *time.Time `bun:"published_at"`
	CreatedAt     time.Time  `bun:"created_at"`
}

// notifiedLike matches the connections whose methods hold notifications.
const notifiedLike = "%" + notifications + "%"

// anyNotified reports whether a live connection takes notifications.
func (p *Plugin) anyNotified(ctx context.Context) (bool, error) {
	n, err := p.db.R.NewSelect().Model((*connRow)(nil)).Where("revoked_at IS NULL").
		Where("methods LIKE ?", notifiedLike).Limit(1).Count(ctx)
	if err != nil {
		return false, fmt.Errorf("looking for NWC connections: %w", err)
	}
	return n > 0, nil
}

// notified lists the live, unexpired connections of wallets that take
// notifications.
func (p *Plugin) notified(ctx context.Context, wallets []string) ([]connRow, error) {
	var cs []connRow
	err := p.db.R.NewSelect().Model(&cs).Where("wallet_id IN (?)", bun.In(wallets)).Where("revoked_at IS NULL").
		Where("methods LIKE ?", notifiedLike).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading NWC connections: %w", err)
	}
	live := cs[:0]
	for _, c := range cs {
		if _, err := p.host.Delegation(ctx, c.ID); err == nil {
			live = append(live, c)
		}
	}
	return live, nil
}

// queue stores notifications, once each: a batch of events read again
// after a crash queues nothing twice.
func (p *Plugin) queue(ctx context.Context, rows []notifyRow) error {
	if len(rows) == 0 {
		return nil
	}
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(&rows).On("CONFLICT (connection_id, event_id, relay) DO NOTHING").Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("queueing NWC notifications: %w", err)
	}
	return nil
}

// due returns up to limit notifications due at now.
func (p *Plugin) due(ctx context.Context, now time.Time, limit int) ([]notifyRow, error) {
	var rs []notifyRow
	err := p.db.R.NewSelect().Model(&rs).Where("state = ?", pending).Where("next_at <= ?", now).
		OrderExpr("next_at").Limit(limit).Scan(ctx)
	return rs, err
}

// maxError bounds the error text kept.
const maxError = 300

func (p *Plugin) finish(ctx context.Context, n *notifyRow, state string, cause error) {
	now := p.cfg.Now().UTC()
	q := func(w bun.IDB) *bun.UpdateQuery {
		u := w.NewUpdate().Model((*notifyRow)(nil)).Set("state = ?", state).
			Where("connection_id = ?", n.ConnectionID).Where("event_id = ?", n.EventID).Where("relay = ?", n.Relay)
		if state == published {
			u = u.Set("published_at = ?", now)
		}
		if cause != nil {
			u = u.Set("last_error = ?", clip(cause.Error()))
		}
		return u
	}
	p.write(ctx, q)
}

func (p *Plugin) retry(ctx context.Context, n *notifyRow, attempts int, next time.Time, cause error) {
	p.write(ctx, func(w bun.IDB) *bun.UpdateQuery {
		return w.NewUpdate().Model((*notifyRow)(nil)).Set("attempts = ?", attempts).Set("next_at = ?", next).
			Set("last_error = ?", clip(cause.Error())).
			Where("connection_id = ?", n.ConnectionID).Where("event_id = ?", n.EventID).Where("relay = ?", n.Relay)
	})
}

func (p *Plugin) write(ctx context.Context, q func(w bun.IDB) *bun.UpdateQuery) {
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) { return q(w).Exec(ctx) })
	if err != nil && ctx.Err() == nil {
		p.log.WarnContext(ctx, "nwc: recording a notification's publication", "err", err)
	}
}

func clip(s string) string {
	if len(s) > maxError {
		return s[:maxError]
	}
	return s
}
