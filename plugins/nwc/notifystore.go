package nwc

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/host"
)

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

// queue hands the notifications to the host's sender in one transaction.
func (p *Plugin) queue(ctx context.Context, sends []host.Send) error {
	if len(sends) == 0 {
		return nil
	}
	err := p.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for _, s := range sends {
			if _, err := p.host.Queue(ctx, tx, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("queueing NWC notifications: %w", err)
	}
	return nil
}
