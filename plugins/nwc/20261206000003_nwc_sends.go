package nwc

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// The notifications move onto the host's sender (host_sends, through the
// plugin's "relay" transport): each still pending on a relay becomes a
// send, with its attempts, next attempt and last error, given up 24 hours
// after it was queued (the default retry window). The plugin's own queue
// goes.
func nwcSends(ctx context.Context, db *bun.DB) error {
	var rows []struct {
		ConnectionID string    `bun:"connection_id"`
		EventID      int64     `bun:"event_id"`
		Relay        string    `bun:"relay"`
		Events       string    `bun:"events"`
		Attempts     int       `bun:"attempts"`
		NextAt       time.Time `bun:"next_at"`
		LastError    *string   `bun:"last_error"`
		CreatedAt    time.Time `bun:"created_at"`
	}
	err := db.NewRaw(`SELECT connection_id, event_id, relay, events, attempts, next_at, last_error, created_at
FROM nwc_notifications WHERE state = 'pending'`).Scan(ctx, &rows)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("reading the notifications pending: %w", err)
	}
	for _, r := range rows {
		_, err := db.ExecContext(ctx, `INSERT INTO host_sends (id, owner, kind, dest, via, idem_key, method, url, headers, body, state,
 attempts, next_at, give_up_at, last_error, created_at) VALUES (?, 'nwc', 'nwc-notification', '', 'relay', ?, 'POST', ?, '{}', ?, 'pending', ?, ?, ?, ?, ?)`,
			uuid.Must(uuid.NewV7()).String(), notificationKey(r.ConnectionID, r.EventID, r.Relay), r.Relay, []byte(r.Events),
			r.Attempts, r.NextAt, r.CreatedAt.Add(24*time.Hour), r.LastError, r.CreatedAt)
		if err != nil {
			return fmt.Errorf("moving a notification onto the sender: %w", err)
		}
	}
	if _, err := db.ExecContext(ctx, `DROP TABLE nwc_notifications`); err != nil {
		return fmt.Errorf("dropping the notifications' queue: %w", err)
	}
	return nil
}

func init() {
	migrations.All.MustRegister(nwcSends, func(context.Context, *bun.DB) error {
		return fmt.Errorf("the notifications' move onto the host's sender is not undone: restore a backup taken before it")
	})
}
