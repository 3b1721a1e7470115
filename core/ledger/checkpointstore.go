package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/uptrace/bun"
)

// checkpointRow is the row of ledger_checkpoint.
type checkpointRow struct {
	bun.BaseModel `bun:"table:ledger_checkpoint"`

	ID         int64     `bun:"id,pk"`
	Through    int64     `bun:"through_event_id"`
	Generation int64     `bun:"generation"`
	FullAt     time.Time `bun:"full_at"`
	UpdatedAt  time.Time `bun:"updated_at"`
}

// checkpointWallet is a row of ledger_checkpoint_wallets.
type checkpointWallet struct {
	bun.BaseModel `bun:"table:ledger_checkpoint_wallets"`

	WalletID string `bun:"wallet_id,pk"`
	Received int64  `bun:"received_msat"`
	Sent     int64  `bun:"sent_msat"`
	Fees     int64  `bun:"fees_paid_msat"`
}

// readCheckpoint reads the checkpoint in q's snapshot.
func readCheckpoint(ctx context.Context, q bun.IDB) (checkpoint, error) {
	var row checkpointRow
	err := q.NewSelect().Model(&row).Where("id = 1").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return checkpoint{}, nil
	}
	if err != nil {
		return checkpoint{}, fmt.Errorf("reading the ledger's checkpoint: %w", err)
	}
	var rows []checkpointWallet
	if err := q.NewSelect().Model(&rows).Scan(ctx); err != nil {
		return checkpoint{}, fmt.Errorf("reading the ledger's checkpoint: %w", err)
	}
	cp := checkpoint{exists: true, through: row.Through, generation: row.Generation, wallets: make(map[string]sums, len(rows))}
	for _, r := range rows {
		cp.wallets[r.WalletID] = sums{r.Received, r.Sent, r.Fees}
	}
	return cp, nil
}

// checkpointChunk is how many wallets' rows one statement writes.
const checkpointChunk = 500

// saveCheckpoint writes next, the sums through the event id through, as
// the checkpoint that follows from (the one the check read): every
// wallet's sums when whole (a full check), else those of the wallets that
// changed. It writes nothing, and says so, when another check moved the
// checkpoint meanwhile: next was computed from from, and adds to it.
func (s *Service) saveCheckpoint(ctx context.Context, from checkpoint, next map[string]sums, through int64, whole bool) (bool, error) {
	ids := slices.Sorted(maps.Keys(next))
	rows := make([]checkpointWallet, len(ids))
	for i, id := range ids {
		n := next[id]
		rows[i] = checkpointWallet{WalletID: id, Received: n.Received, Sent: n.Sent, Fees: n.Fees}
	}
	now := s.timestamp()
	var moved bool
	err := s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		moved = false
		head := &checkpointRow{ID: 1, Through: through, Generation: from.generation + 1, FullAt: now, UpdatedAt: now}
		var res sql.Result
		var err error
		switch {
		case !from.exists:
			res, err = tx.NewInsert().Model(head).On("CONFLICT (id) DO NOTHING").Exec(ctx)
		case whole:
			res, err = tx.NewUpdate().Model(head).Column("through_event_id", "generation", "full_at", "updated_at").
				WherePK().Where("generation = ?", from.generation).Exec(ctx)
		default:
			res, err = tx.NewUpdate().Model(head).Column("through_event_id", "generation", "updated_at").
				WherePK().Where("generation = ?", from.generation).Exec(ctx)
		}
		if moved, err = affected(res, err); err != nil || !moved {
			return err
		}
		if whole {
			if _, err := tx.NewDelete().Model((*checkpointWallet)(nil)).Where("1 = 1").Exec(ctx); err != nil {
				return err
			}
		}
		for chunk := range slices.Chunk(rows, checkpointChunk) {
			_, err := tx.NewInsert().Model(&chunk).On("CONFLICT (wallet_id) DO UPDATE").
				Set("received_msat = EXCLUDED.received_msat").
				Set("sent_msat = EXCLUDED.sent_msat").
				Set("fees_paid_msat = EXCLUDED.fees_paid_msat").Exec(ctx)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("writing the ledger's checkpoint: %w", err)
	}
	return moved, nil
}
