package nwc_test

import (
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestLastUseWrittenOnceAMinute: an app's requests write the connection's
// last use at most once a minute: a request 59 s after the one recorded
// leaves it, one a minute after moves it.
func TestLastUseWrittenOnceAMinute(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		lastUseOnceAMinute(t, e)
	})
}

func lastUseOnceAMinute(t *testing.T, e *plugintest.Env) {
	var mu sync.Mutex
	now := time.Now().UTC().Truncate(time.Second)
	advance := func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(d)
	}
	k := newKit(t, e, func(c *nwc.Config) {
		c.Now = func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			return now
		}
	})
	alice, _ := k.user("alice", 0, auth.AllScopes)
	c, a := k.connect(alice, map[string]any{"name": "busy"})
	lastUse := func() time.Time {
		t.Helper()
		var got nwc.Connection
		k.do(alice, "GET", "/v1/me/nwc/connections/"+c.ID, nil).decode(t, &got)
		if got.LastUsedAt == nil {
			t.Fatal("the connection was never used")
		}
		return *got.LastUsedAt
	}
	call := func() {
		t.Helper()
		if r := a.Call("get_balance", nil); r.Code() != "" {
			t.Fatalf("get_balance: %+v", r)
		}
	}
	call()
	first := lastUse()
	advance(59 * time.Second)
	call()
	if got := lastUse(); !got.Equal(first) {
		t.Fatalf("a request 59 s later wrote the last use again: %v, then %v", first, got)
	}
	advance(time.Second)
	call()
	if got := lastUse(); !got.Equal(first.Add(time.Minute)) {
		t.Fatalf("a request a minute later left the last use at %v (first %v)", got, first)
	}
}
