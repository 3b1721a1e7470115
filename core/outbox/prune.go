package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// sqlResult is what a write returns.
type sqlResult = sql.Result

// prunedName is the event_cursors row that holds the last id pruned: a
// position before it may have lost events (ErrPruned).
const prunedName = "outbox.pruned"

// pruneBatch is how many events one pruning transaction deletes at most.
const pruneBatch = 1000

// pruneEvery is how often the outbox prunes for a retention.
func pruneEvery(retention time.Duration) time.Duration {
	return min(max(retention/100, time.Second), 10*time.Minute)
}

func (o *Outbox) pruneLogged(ctx context.Context) {
	if n, err := o.Prune(ctx, time.Now().Add(-o.cfg.Retention)); err != nil && ctx.Err() == nil {
		o.log.WarnContext(ctx, "pruning old events", "err", err)
	} else if n > 0 {
		o.log.DebugContext(ctx, "pruned old events", "count", n)
	}
}

// Prune deletes the events written before cutoff, oldest first, and
// records the last id it deleted; it keeps the newest event whatever its
// age (SQLite would otherwise hand its id out again). It returns how many
// it deleted.
func (o *Outbox) Prune(ctx context.Context, cutoff time.Time) (int, error) {
	total := 0
	var newest int64
	if err := o.db.R.NewRaw("SELECT COALESCE(MAX(id), 0) FROM events").Scan(ctx, &newest); err != nil {
		return 0, fmt.Errorf("reading the newest event: %w", err)
	}
	for {
		var rows []row
		if err := o.db.R.NewSelect().Model(&rows).Column("id", "created_at").OrderExpr("id").Limit(pruneBatch).Scan(ctx); err != nil {
			return total, fmt.Errorf("reading the oldest events: %w", err)
		}
		n := 0
		for n < len(rows) && rows[n].CreatedAt.Before(cutoff) && rows[n].ID < newest {
			n++
		}
		if n == 0 {
			return total, nil
		}
		last := rows[n-1].ID
		err := o.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO event_cursors (name, last_id, updated_at) VALUES (?, ?, ?)
				ON CONFLICT (name) DO UPDATE SET last_id = excluded.last_id, updated_at = excluded.updated_at
				WHERE event_cursors.last_id < excluded.last_id`, prunedName, last, time.Now().UTC()); err != nil {
				return err
			}
			_, err := tx.NewDelete().Model((*row)(nil)).Where("id <= ?", last).Exec(ctx)
			return err
		})
		if err != nil {
			return total, fmt.Errorf("pruning events: %w", err)
		}
		total += n
		if n < pruneBatch {
			return total, nil
		}
	}
}

// Pruned returns the last id pruned: events up to it may be gone.
func (o *Outbox) Pruned(ctx context.Context) (int64, error) {
	var last []int64
	if err := o.db.R.NewSelect().Model((*cursorRow)(nil)).Column("last_id").Where("name = ?", prunedName).Scan(ctx, &last); err != nil {
		return 0, fmt.Errorf("reading the pruned position: %w", err)
	}
	if len(last) == 0 {
		return 0, nil
	}
	return last[0], nil
}
