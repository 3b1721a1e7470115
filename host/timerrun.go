package host

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/store"
)

// timerRow is the state of one plugin's timer: when it is next due (Unix
// milliseconds, exact on both databases, so that a claim can compare it),
// and when it last fired.
type timerRow struct {
	bun.BaseModel `bun:"table:plugin_timers"`

	Plugin string `bun:"plugin,pk"`
	Name   string `bun:"name,pk"`
	Spec   string `bun:"spec,notnull"`
	DueMS  int64  `bun:"due_ms,notnull"`
	LastMS *int64 `bun:"last_ms"`
}

// timerState is a timer as its plugin's worker runs it.
type timerState struct {
	Timer
	sched schedule
	due   time.Time // when it is due, as last read or claimed; zero before
}

// timerSet is one plugin's timers. Its worker, which runs on the replica
// that leads event delivery, fires them between events; the claim of each
// due time is a conditional update, so that two replicas that both think
// they lead (for the moments of a change of leader) fire it once.
type timerSet struct {
	db     *store.DB
	plugin string
	timers []timerState
	read   time.Time // when the rows were last read
}

// timerReread is how often a worker reads its timers' rows again: a due
// time another replica moved, or one the operator set, is seen within it.
const timerReread = 5 * time.Second

// newTimerSet returns p's timers; nil when it has none.
func newTimerSet(db *store.DB, p *Plugin) *timerSet {
	if len(p.Manifest.Timers) == 0 || db == nil {
		return nil
	}
	s := &timerSet{db: db, plugin: p.Name}
	for _, t := range p.Manifest.Timers {
		sched, err := t.schedule()
		if err != nil {
			continue // Validate refused it at install
		}
		s.timers = append(s.timers, timerState{Timer: t, sched: sched})
	}
	return s
}

// due returns the timers due at now, each claimed: fire each once. It
// also returns when the next is due after them.
func (s *timerSet) due(ctx context.Context, now time.Time) (firings []Firing, next time.Time, err error) {
	reread := now.Sub(s.read) >= timerReread
	if reread {
		s.read = now
	}
	for i := range s.timers {
		t := &s.timers[i]
		if t.due.IsZero() || reread {
			if err := s.load(ctx, t, now); err != nil {
				return firings, now.Add(time.Second), err
			}
		}
		if !now.Before(t.due) {
			f, won, err := s.claim(ctx, t, now)
			if err != nil {
				return firings, now.Add(time.Second), err
			}
			if won {
				firings = append(firings, f)
			}
		}
		if next.IsZero() || t.due.Before(next) {
			next = t.due
		}
	}
	return firings, next, nil
}

// load reads t's state, starting it at its next due time when it has none
// or its schedule changed.
func (s *timerSet) load(ctx context.Context, t *timerState, now time.Time) error {
	if spec, err := s.reread(ctx, t); err != nil || (spec == t.spec() && !t.due.IsZero()) {
		return err
	}
	row := &timerRow{Plugin: s.plugin, Name: t.Name, Spec: t.spec(), DueMS: t.sched.Next(now).UnixMilli()}
	_, err := s.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(row).
			On("CONFLICT (plugin, name) DO UPDATE").
			Set("spec = EXCLUDED.spec, due_ms = EXCLUDED.due_ms").
			Where("?TableAlias.spec <> EXCLUDED.spec").
			Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("starting timer %s of %s: %w", t.Name, s.plugin, err)
	}
	_, err = s.reread(ctx, t)
	return err
}

// reread takes t's due time from its row (zero when it has none, or one
// of another schedule), and returns the row's schedule.
func (s *timerSet) reread(ctx context.Context, t *timerState) (string, error) {
	var row timerRow
	err := s.db.R.NewSelect().Model(&row).Where("plugin = ?", s.plugin).Where("name = ?", t.Name).Scan(ctx)
	t.due = time.Time{}
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading timer %s of %s: %w", t.Name, s.plugin, err)
	}
	if row.Spec == t.spec() {
		t.due = time.UnixMilli(row.DueMS).UTC()
	}
	return row.Spec, nil
}

// claim moves t's due time past now if it is still the one read: the
// replica whose update wins fires it. missed counts the due times between
// the claimed one and now, passed over.
func (s *timerSet) claim(ctx context.Context, t *timerState, now time.Time) (Firing, bool, error) {
	was := t.due
	next, missed := t.sched.Next(was), 0
	for !next.After(now) && missed < 10_000 {
		was, next = next, t.sched.Next(next)
		missed++
	}
	if !next.After(now) {
		next = t.sched.Next(now)
	}
	res, err := s.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewUpdate().Model((*timerRow)(nil)).
			Set("due_ms = ?", next.UnixMilli()).Set("last_ms = ?", now.UnixMilli()).
			Where("plugin = ?", s.plugin).Where("name = ?", t.Name).
			Where("due_ms = ?", t.due.UnixMilli()).Where("spec = ?", t.spec()).
			Exec(ctx)
	})
	if err != nil {
		return Firing{}, false, fmt.Errorf("claiming timer %s of %s: %w", t.Name, s.plugin, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		_, err := s.reread(ctx, t) // another replica's, or changed
		return Firing{}, false, err
	}
	t.due = next
	return Firing{Name: t.Name, DueAt: was, Missed: missed}, true, nil
}

// fireTimers runs p's due timers, each through its event handler as a
// TimerEvent, and returns when the next is due (zero: no timers). A timer
// fires while p is enabled; one claimed and then cut short (a crash, a
// fault) is not run again for that due time: the next comes.
func (r *Registry) fireTimers(ctx context.Context, p *Plugin, s *timerSet) time.Time {
	if s == nil {
		return time.Time{}
	}
	if p.State() != Enabled {
		return time.Now().Add(eventPoll)
	}
	firings, next, err := s.due(ctx, time.Now())
	if err != nil && ctx.Err() == nil {
		r.log.WarnContext(ctx, "running a plugin's timers", "plugin", p.Name, "err", err)
	}
	for _, f := range firings {
		payload, err := EncodeEvent(event.Event{Type: TimerEvent, WalletID: p.Grant().WalletID, ID: f.Name, At: f.DueAt, Data: f})
		if err != nil {
			r.log.ErrorContext(ctx, "encoding a timer", "plugin", p.Name, "timer", f.Name, "err", err)
			continue
		}
		switch err := r.Deliver(ctx, p, payload); {
		case errors.Is(err, ErrUnavailable):
			p.Log("warn", "timer missed, the plugin was not running: "+f.Name)
		case err != nil && !IsFault(err):
			p.Log("warn", "timer "+f.Name+": "+err.Error())
		}
	}
	return next
}
