package host

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// StreamSpec is a destination subscribed to a wallet's events
// (Caller.OpenStream): each event of WalletID whose type is among Types
// is POSTed to URL as JSON (the outbox's event: id, type, created_at,
// wallet_id, data), signed with Secret in the Hearth-Signature header
// (lib/signature) and named in Hearth-Event-Id; one at a time, in the
// outbox's order, at least once. Nothing is written per event but the
// attempts log, in batches: the outbox is the queue, and the stream's
// cursor its place in it.
type StreamSpec struct {
	// Key is the owner's name for the stream (a webhook's id).
	Key      string
	WalletID string
	Types    []string
	URL      string
	Secret   string
}

// StreamPolicy is how an owner's streams are delivered
// (Caller.SetStreamPolicy); zero fields take the defaults.
type StreamPolicy struct {
	// RetryWindow is how long an event is retried after its first
	// attempt; then it is given up and the stream moves on. Default 72h.
	RetryWindow time.Duration
	// DisableAfter disables a stream that has failed this long without a
	// success. Default 5 days.
	DisableAfter time.Duration
	// FirstRetry is the wait after a first failure, doubled after each
	// next one up to MaxBackoff, plus up to 20 % jitter. Defaults 10s, 1h.
	FirstRetry, MaxBackoff time.Duration
	// Outbound sends the requests: the owner's own client (its grant,
	// timeout, cap). Default: the sender's, checking the owner's grant.
	Outbound *Outbound
	// OnAttempt, when set, hears each attempt's status (0: no answer).
	OnAttempt func(status int)
}

func (p *StreamPolicy) fill() {
	p.RetryWindow = orDefault(p.RetryWindow, 72*time.Hour)
	p.DisableAfter = orDefault(p.DisableAfter, 5*24*time.Hour)
	p.FirstRetry = orDefault(p.FirstRetry, 10*time.Second)
	p.MaxBackoff = orDefault(p.MaxBackoff, time.Hour)
}

// StreamState is a stream as its owner sees it.
type StreamState struct {
	Active         bool
	DisabledReason *string
	// Cursor is the last event it is done with (delivered or given up).
	Cursor int64
}

// StreamAttempt is one attempt to deliver an event, or a test, of a
// stream.
type StreamAttempt struct {
	EventID    int64
	Attempt    int
	StatusCode *int
	Error      *string
	DurationMS int64
	At         time.Time
}

// ErrStreamNotFound is a key the owner has no stream of.
var ErrStreamNotFound = errors.New("no such stream")

// SetStreamPolicy sets how the plugin's streams are delivered, from now on.
func (c *Caller) SetStreamPolicy(p StreamPolicy) {
	p.fill()
	c.api.sender.policies.Store(c.p.Name, p)
}

// OpenStream subscribes s in tx (the transaction of the owner's record of
// it): it gets the events written from now on. The URL's host needs an
// outbound grant (http:any or http:outbound:<host>), now and at each
// attempt.
func (c *Caller) OpenStream(ctx context.Context, tx bun.IDB, s StreamSpec) error {
	host, err := requestHost(s.URL)
	if err != nil {
		return callErrorf("invalid", "%v", err)
	}
	if err := c.allow(ctx, need{host: host, what: "open_stream"}); err != nil {
		return err
	}
	if s.Key == "" || s.WalletID == "" || len(s.Types) == 0 {
		return callErrorf("invalid", "a stream needs a key, a wallet and event types")
	}
	head, err := c.api.eventHead(ctx, tx)
	if err != nil {
		return err
	}
	row := &streamRow{Owner: c.p.Name, Key: s.Key, WalletID: s.WalletID, Types: strings.Join(s.Types, " "), URL: s.URL,
		Secret: s.Secret, Cursor: head, Active: true, CreatedAt: time.Now().UTC()}
	if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
		return fmt.Errorf("opening a stream: %w", err)
	}
	c.api.sender.Kick()
	return nil
}

// CloseStream removes stream key and its attempts log in tx.
func (c *Caller) CloseStream(ctx context.Context, tx bun.IDB, key string) error {
	if _, err := tx.NewDelete().Model((*streamRow)(nil)).Where("owner = ?", c.p.Name).Where("key = ?", key).Exec(ctx); err != nil {
		return fmt.Errorf("closing a stream: %w", err)
	}
	if _, err := tx.NewDelete().Model((*streamAttemptRow)(nil)).Where("owner = ?", c.p.Name).Where("key = ?", key).Exec(ctx); err != nil {
		return fmt.Errorf("deleting a stream's attempts: %w", err)
	}
	c.api.sender.Kick()
	return nil
}

// StreamStates returns the states of the plugin's streams keys, by key;
// a key it has no stream of is absent.
func (c *Caller) StreamStates(ctx context.Context, keys []string) (map[string]StreamState, error) {
	out := map[string]StreamState{}
	if len(keys) == 0 {
		return out, nil
	}
	var rows []streamRow
	err := c.api.db.R.NewSelect().Model(&rows).Column("key", "active", "disabled_reason", "cursor").
		Where("owner = ?", c.p.Name).Where("key IN (?)", bun.List(keys)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading streams: %w", err)
	}
	for _, r := range rows {
		out[r.Key] = StreamState{Active: r.Active, DisabledReason: r.DisabledReason, Cursor: r.Cursor}
	}
	return out, nil
}

// StreamAttempts lists stream key's attempts, newest first, limit at most.
func (c *Caller) StreamAttempts(ctx context.Context, key string, limit int) ([]StreamAttempt, error) {
	var rows []streamAttemptRow
	err := c.api.db.R.NewSelect().Model(&rows).Where("owner = ?", c.p.Name).Where("key = ?", key).
		OrderExpr("at DESC, event_id DESC, attempt DESC").Limit(limit).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing a stream's attempts: %w", err)
	}
	out := make([]StreamAttempt, len(rows))
	for i, r := range rows {
		out[i] = StreamAttempt{EventID: r.EventID, Attempt: r.Attempt, StatusCode: r.StatusCode, Error: r.Error,
			DurationMS: r.DurationMS, At: r.At.UTC()}
	}
	return out, nil
}

// TestStream has stream key send body once, as event id (a test: not an
// outbox event), before its next event; a test not sent yet is replaced.
// It is ErrStreamNotFound when the plugin has no active stream key.
func (c *Caller) TestStream(ctx context.Context, key string, id int64, body []byte) error {
	res, err := c.api.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewUpdate().Model((*streamRow)(nil)).Set("test_id = ?", id).Set("test_body = ?", string(body)).
			Where("owner = ?", c.p.Name).Where("key = ?", key).Where("active = ?", true).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("queueing a stream's test: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(ErrStreamNotFound, err)
	}
	c.api.sender.Kick()
	return nil
}
