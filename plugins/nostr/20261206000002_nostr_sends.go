package nostr

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// The receipts move onto the host's sender (host_sends, through the
// plugin's "relay" transport): each receipt still pending on a relay
// becomes a send, with its attempts, next attempt and last error, given up
// 72 hours after it was queued (the default retry window). A relay's row
// keeps which send publishes it, and the outcome once it is done; the
// plugin's own queue index goes.
func nostrSends(ctx context.Context, db *bun.DB) error {
	if _, err := db.ExecContext(ctx, `ALTER TABLE nostr_zap_relays ADD COLUMN send_id TEXT`); err != nil {
		return fmt.Errorf("adding the relays' send: %w", err)
	}
	if _, err := db.ExecContext(ctx, `DROP INDEX nostr_zap_relays_due_idx`); err != nil {
		return fmt.Errorf("dropping the receipts' queue index: %w", err)
	}
	var rows []struct {
		InvoiceID string    `bun:"invoice_id"`
		Relay     string    `bun:"relay"`
		Attempts  int       `bun:"attempts"`
		NextAt    time.Time `bun:"next_at"`
		LastError *string   `bun:"last_error"`
		CreatedAt time.Time `bun:"created_at"`
		Receipt   string    `bun:"receipt"`
	}
	err := db.NewRaw(`SELECT r.invoice_id, r.relay, r.attempts, r.next_at, r.last_error, r.created_at, z.receipt
FROM nostr_zap_relays r JOIN nostr_zaps z ON z.invoice_id = r.invoice_id
WHERE r.state = 'pending' AND z.receipt IS NOT NULL`).Scan(ctx, &rows)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("reading the receipts pending: %w", err)
	}
	for _, r := range rows {
		id := uuid.Must(uuid.NewV7()).String()
		_, err := db.ExecContext(ctx, `INSERT INTO host_sends (id, owner, kind, dest, via, method, url, headers, body, state,
 attempts, next_at, give_up_at, last_error, created_at) VALUES (?, 'nostr', 'zap-receipt', '', 'relay', 'POST', ?, '{}', ?, 'pending', ?, ?, ?, ?, ?)`,
			id, r.Relay, []byte(r.Receipt), r.Attempts, r.NextAt, r.CreatedAt.Add(72*time.Hour), r.LastError, r.CreatedAt)
		if err != nil {
			return fmt.Errorf("moving a receipt onto the sender: %w", err)
		}
		if _, err := db.ExecContext(ctx, `UPDATE nostr_zap_relays SET send_id = ? WHERE invoice_id = ? AND relay = ?`,
			id, r.InvoiceID, r.Relay); err != nil {
			return fmt.Errorf("moving a receipt onto the sender: %w", err)
		}
	}
	return nil
}

func init() {
	migrations.All.MustRegister(nostrSends, func(context.Context, *bun.DB) error {
		return fmt.Errorf("the receipts' move onto the host's sender is not undone: restore a backup taken before it")
	})
}
