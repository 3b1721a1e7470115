package auth

import (
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store/storetest"
)

// TestKeyCacheKeepsNoLookupOlderThanAChange checks put's generation: what
// a lookup begun before the cache was emptied read may be what changed,
// so it is not stored; a lookup begun after is.
func TestKeyCacheKeepsNoLookupOlderThanAChange(t *testing.T) {
	t.Parallel()
	c := newKeyCache(storetest.SQLite(t))
	now := time.Now()
	_, gen, ok := c.get("h", now)
	if ok {
		t.Fatal("an empty cache answered")
	}
	c.clear() // a revocation commits while the lookup runs
	c.put("h", gen, cachedKey{walletID: "w", readAt: now})
	if _, _, ok := c.get("h", now); ok {
		t.Fatal("a lookup older than the change was stored")
	}
	_, gen, _ = c.get("h", now)
	c.put("h", gen, cachedKey{walletID: "w", readAt: now})
	if e, _, ok := c.get("h", now); !ok || e.walletID != "w" {
		t.Fatal("a lookup newer than the change was not stored")
	}
	if _, _, ok := c.get("h", now.Add(keyCacheTTL)); ok {
		t.Fatal("an entry older than the TTL answered")
	}
}
