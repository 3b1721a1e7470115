package store

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Watch tells a cache of database rows when the rows may have changed, so
// that it can drop what it holds. Two sources feed it:
//
//   - this process, which calls DB.Changed right after committing a change
//     (so a change is seen here before its writer is answered), and
//   - on PostgreSQL, every other process sharing the database: a trigger
//     on the watched tables sends NOTIFY on the topic's channel when a
//     change commits, and the watch LISTENs on a connection of its own.
//
// A cache may trust what it holds only while the watch is Live: on
// PostgreSQL, while the listening connection is up. When that connection
// fails the watch reports a change (a notification may have been missed)
// and is not live until it listens again.
type Watch struct {
	topic   string
	changed func()
	live    atomic.Bool
	db      *DB
	stop    context.CancelFunc
	done    chan struct{}
}

// WatchTopic is a topic of change notifications: the name of its PostgreSQL
// channel, which the trigger that sends it suffixes with the schema (see
// migration 20261122000006_watch).
type WatchTopic string

// AuthTopic covers what authenticates a request: API keys (revoked or
// deleted) and wallets (deleted).
const AuthTopic WatchTopic = "hearth_auth"

// SettingsTopic covers the settings table: the token signing secret above
// all, which a password change rotates.
const SettingsTopic WatchTopic = "hearth_settings"

// PluginsTopic covers the plugins table: installed, changed or removed.
const PluginsTopic WatchTopic = "hearth_plugins"

// watchRetry is how long a failed listening connection waits before it
// connects again, at most.
const watchRetry = 5 * time.Second

// Watch calls changed whenever the rows of topic may have changed, until
// Close. On SQLite the one process that opens the database makes every
// change itself, so the watch is always live.
func (db *DB) Watch(topic WatchTopic, changed func()) *Watch {
	w := &Watch{topic: string(topic), changed: changed, done: make(chan struct{}), db: db}
	db.watchMu.Lock()
	db.watches = append(db.watches, w)
	db.watchMu.Unlock()
	if db.Dialect != Postgres {
		w.live.Store(true)
		close(w.done)
		w.stop = func() {}
		return w
	}
	ctx, stop := context.WithCancel(context.Background())
	w.stop = stop
	go w.listen(ctx, db.pgConfig)
	return w
}

// Live reports whether every change reaches the watch now.
func (w *Watch) Live() bool { return w.live.Load() }

// Close stops listening.
func (w *Watch) Close() {
	w.db.watchMu.Lock()
	w.db.watches = slices.DeleteFunc(w.db.watches, func(o *Watch) bool { return o == w })
	w.db.watchMu.Unlock()
	w.stop()
	<-w.done
}

// closeWatches closes the watches still open when the database closes.
func (db *DB) closeWatches() {
	db.watchMu.Lock()
	watches := slices.Clone(db.watches)
	db.watchMu.Unlock()
	for _, w := range watches {
		w.Close()
	}
}

// Changed tells this process's watches of topic that its rows changed; a
// writer calls it once its change has committed.
func (db *DB) Changed(topic WatchTopic) {
	db.watchMu.Lock()
	watches := slices.Clone(db.watches)
	db.watchMu.Unlock()
	for _, w := range watches {
		if w.topic == string(topic) {
			w.changed()
		}
	}
}

// listen keeps a connection listening on the topic's channel, reporting
// each notification, until ctx ends.
func (w *Watch) listen(ctx context.Context, cfg *pgx.ConnConfig) {
	defer close(w.done)
	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := w.listenOnce(ctx, cfg)
		if w.live.Load() {
			wait = 100 * time.Millisecond // it listened: a new failure starts over
		}
		w.live.Store(false)
		w.changed() // what arrived while nobody listened is unknown
		if ctx.Err() != nil {
			return
		}
		slog.Warn("listening for changes failed; caching is off until it listens again",
			"topic", w.topic, "retry_in", wait, "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, watchRetry)
	}
}

// listenOnce connects, listens and reports notifications until the
// connection fails or ctx ends.
func (w *Watch) listenOnce(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var schema string
	if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return err
	}
	channel := pgx.Identifier{channelName(w.topic, schema)}.Sanitize()
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		return err
	}
	// Whatever changed before LISTEN took effect is unknown: drop it, then
	// trust the cache again.
	w.changed()
	w.live.Store(true)
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		w.changed()
	}
}

// watchState is the DB's part of Watch.
type watchState struct {
	watchMu sync.Mutex
	watches []*Watch
}

// channelName is the PostgreSQL channel of topic in schema: the two joined
// and cut to 63 bytes, PostgreSQL's longest name, as the trigger does.
func channelName(topic, schema string) string {
	name := topic + "_" + schema
	if len(name) > 63 {
		name = name[:63]
	}
	return name
}
