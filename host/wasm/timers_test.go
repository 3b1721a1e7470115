package wasm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/plugintest"
)

// kvValue reads a key of plugin name's store; "" when absent.
func kvValue(t *testing.T, e *plugintest.Env, name, key string) string {
	t.Helper()
	var v []byte
	err := e.DB.R.NewSelect().Table("plugin_kv").Column("value").Where("plugin = ?", name).Where("key = ?", key).Scan(context.Background(), &v)
	if err != nil {
		return ""
	}
	return string(v)
}

// setDue makes plugin name's timer due at at.
func setDue(t *testing.T, db *store.DB, name string, at time.Time) {
	t.Helper()
	if _, err := db.W.NewUpdate().Table("plugin_timers").Set("due_ms = ?", at.UnixMilli()).Where("plugin = ?", name).
		Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestTimerRunsInThePlugin: on both databases, a plugin's timer starts at
// its next due time, fires in the plugin once it is due (its handler gets
// the due time and the due times passed over), not while the plugin is
// disabled, once on its next enable, and leaves with the plugin.
func TestTimerRunsInThePlugin(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{})
		m, _ := json.Marshal(map[string]any{"name": "ticker", "version": "1.0.0", "abi": "hearth_v2",
			"timers":  []map[string]string{{"name": "tick", "every": "1h"}},
			"metrics": map[string]any{"ticks": map[string]string{"type": "counter"}, "missed": map[string]string{"type": "gauge"}}})
		e.Install(plugin(t, "ticker"), m)
		e.Enable("ticker", "")
		ctx := context.Background()
		dueMS := func() int64 {
			var ms int64
			if err := db.R.NewSelect().Table("plugin_timers").Column("due_ms").Where("plugin = ?", "ticker").Scan(ctx, &ms); err != nil {
				return 0
			}
			return ms
		}
		grid := time.Now().UTC().Truncate(time.Hour)
		e.Eventually("the timer to start", func() bool { return dueMS() == grid.Add(time.Hour).UnixMilli() })
		if v := kvValue(t, e, "ticker", "ticks"); v != "" {
			t.Fatalf("fired before it was due: %q", v)
		}

		setDue(t, db, "ticker", grid.Add(-2*time.Hour))
		e.Eventually("the due timer to fire", func() bool { return kvValue(t, e, "ticker", "due") != "" })
		if got, want := kvValue(t, e, "ticker", "due"), grid.Format(time.RFC3339Nano)+" 2"; got != want {
			t.Fatalf("the handler got %q, want %q", got, want)
		}
		if n := kvValue(t, e, "ticker", "ticks"); n != "1" {
			t.Fatalf("fired %s times, want once", n)
		}
		if got := ownSeries(t, e); got != "hearth_plugin_missed{ticker}=2 hearth_plugin_ticks_total{ticker}=1 " {
			t.Fatalf("the plugin's own series: %s", got)
		}
		e.Eventually("the next due time", func() bool { return dueMS() == grid.Add(time.Hour).UnixMilli() })

		if _, err := e.Registry.Disable(ctx, "ticker"); err != nil {
			t.Fatal(err)
		}
		setDue(t, db, "ticker", grid.Add(-time.Hour))
		e.Enable("ticker", "")
		e.Eventually("the timer due while disabled to fire once enabled", func() bool { return kvValue(t, e, "ticker", "ticks") == "2" })

		if err := e.Registry.Remove(ctx, "ticker"); err != nil {
			t.Fatal(err)
		}
		if n, err := db.R.NewSelect().Table("plugin_timers").Where("plugin = ?", "ticker").Count(ctx); err != nil || n != 0 {
			t.Fatalf("%d timers left after the plugin's removal: %v", n, err)
		}
		if got := ownSeries(t, e); got != "" {
			t.Fatalf("the plugin's own series after its removal: %s", got)
		}
	})
}

// ownSeries lists the plugins' own series of e's registry, in order:
// "family{plugin}=value ".
func ownSeries(t *testing.T, e *plugintest.Env) string {
	t.Helper()
	fams, err := e.App.Metrics.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range fams {
		name := f.GetName()
		if name != "hearth_plugin_ticks_total" && name != "hearth_plugin_missed" {
			continue
		}
		for _, m := range f.GetMetric() {
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			fmt.Fprintf(&b, "%s{%s}=%v ", name, m.GetLabel()[0].GetValue(), v)
		}
	}
	return b.String()
}
