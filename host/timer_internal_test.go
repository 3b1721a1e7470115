package host

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// TestTimerSchedules: an interval counts from a fixed origin, so every
// replica computes the same due times; cron lines are read in UTC; and
// the manifest refuses what cannot be run.
func TestTimerSchedules(t *testing.T) {
	at := time.Date(2026, 11, 28, 10, 20, 30, 0, time.UTC)
	for _, c := range []struct {
		timer Timer
		want  time.Time
	}{
		{Timer{Name: "a", Every: "15m"}, time.Date(2026, 11, 28, 10, 30, 0, 0, time.UTC)},
		{Timer{Name: "b", Every: "24h"}, time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)},
		{Timer{Name: "c", Cron: "0 8 * * *"}, time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)},
		{Timer{Name: "d", Cron: "@hourly"}, time.Date(2026, 11, 28, 11, 0, 0, 0, time.UTC)},
	} {
		s, err := c.timer.schedule()
		if err != nil {
			t.Fatalf("%+v: %v", c.timer, err)
		}
		if got := s.Next(at); !got.Equal(c.want) {
			t.Errorf("%+v: next %s, want %s", c.timer, got, c.want)
		}
	}
	for _, bad := range []Timer{
		{Name: "a"}, {Name: "a", Every: "1m", Cron: "* * * * *"}, {Name: "a", Every: "5s"},
		{Name: "a", Every: "soon"}, {Name: "a", Cron: "* * *"}, {Name: "a", Cron: "@every 1m"},
		{Name: "a", Cron: "*/5 * * * * *"}, {Name: "A", Every: "1m"},
	} {
		var errs []string
		validateTimers([]Timer{bad}, func(f string, a ...any) { errs = append(errs, f) })
		if len(errs) == 0 {
			t.Errorf("%+v accepted", bad)
		}
	}
	var errs int
	validateTimers([]Timer{{Name: "a", Every: "1m"}, {Name: "a", Every: "2m"}}, func(string, ...any) { errs++ })
	if errs != 1 {
		t.Errorf("a name listed twice: %d errors", errs)
	}
}

// TestTimerFiresOncePerDueTime: on both databases, the workers of two
// replicas that both think they lead (a change of leader), twenty at once,
// fire a due time once between them; the one that wins moves the timer to
// its next due time and counts the due times passed over; a changed
// schedule starts again from its own next due time.
func TestTimerFiresOncePerDueTime(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		m := &Manifest{Name: "ticker", Timers: []Timer{{Name: "tick", Every: "1h"}}}
		p := newPlugin(m, false)
		now := time.Now().UTC()
		first := newTimerSet(db, p)
		if _, next, err := first.due(ctx, now); err != nil || !next.Equal(now.Truncate(time.Hour).Add(time.Hour)) {
			t.Fatalf("first due time %s, %v", next, err)
		}
		grid := now.Truncate(time.Hour)
		if _, err := db.W.NewUpdate().Model((*timerRow)(nil)).Set("due_ms = ?", grid.Add(-2*time.Hour).UnixMilli()).
			Where("plugin = ?", "ticker").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		var fired atomic.Int32
		var wg sync.WaitGroup
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := newTimerSet(db, p) // a worker of its own: reads the row
				fs, next, err := s.due(ctx, now)
				if err != nil {
					t.Error(err)
					return
				}
				if !next.Equal(grid.Add(time.Hour)) {
					t.Errorf("next due %s, want %s", next, grid.Add(time.Hour))
				}
				for _, f := range fs {
					fired.Add(1)
					if !f.DueAt.Equal(grid) || f.Missed != 2 || f.Name != "tick" {
						t.Errorf("firing %+v, want due at %s with 2 missed", f, grid)
					}
				}
			}()
		}
		wg.Wait()
		if n := fired.Load(); n != 1 {
			t.Fatalf("fired %d times, want once", n)
		}
		if fs, _, err := first.due(ctx, now); err != nil || len(fs) != 0 {
			t.Fatalf("a worker that read the old due time fired %d again: %v", len(fs), err)
		}
		p.Manifest = &Manifest{Name: "ticker", Timers: []Timer{{Name: "tick", Every: "15m"}}}
		fs, next, err := newTimerSet(db, p).due(ctx, now)
		if want := now.Truncate(15 * time.Minute).Add(15 * time.Minute); err != nil || len(fs) != 0 || !next.Equal(want) {
			t.Fatalf("changed schedule: %d fired, next %s (want %s), %v", len(fs), next, want, err)
		}
	})
}
