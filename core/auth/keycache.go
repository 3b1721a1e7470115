package auth

import (
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/store"
)

// keyCache holds the live API keys that requests presented lately, by the
// hash of their secret, with their owner's wallet: most requests then
// authenticate without a query, which on PostgreSQL is half the server's
// work for a payment.
//
// A revocation still takes effect at once. What the cache holds is trusted
// only while its store.Watch is live, and the watch empties it whenever a
// key or a wallet may have changed: at once for a change made by this
// process (Revoke, and wallet.Service.Delete, which revokes the owner's
// keys with the wallet, call DB.Changed after their commit), and within the notification's delay for one made by another
// replica or by hand in the database. A lookup that began before such a
// change is not stored after it (gen). Expiry is checked on every hit, and
// an entry is read again after keyCacheTTL whatever happens.
type keyCache struct {
	watch *store.Watch

	mu      sync.RWMutex
	gen     uint64 // counts the times the cache was emptied
	entries map[string]cachedKey
}

// cachedKey is what a key's lookup found.
type cachedKey struct {
	principal Principal
	walletID  string
	expiresAt *time.Time
	readAt    time.Time
}

// Bounds of the cache.
const (
	keyCacheTTL     = time.Minute
	keyCacheEntries = 10_000 // past this the cache starts again empty
)

func newKeyCache(db *store.DB) *keyCache {
	c := &keyCache{entries: make(map[string]cachedKey)}
	c.watch = db.Watch(store.AuthTopic, c.clear)
	return c
}

// get returns the entry of hash if the cache may be trusted and holds a
// fresh one, and otherwise the generation to pass to put after the lookup.
func (c *keyCache) get(hash string, now time.Time) (cachedKey, uint64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[hash]
	if ok && c.watch.Live() && now.Sub(e.readAt) < keyCacheTTL {
		return e, c.gen, true
	}
	return cachedKey{}, c.gen, false
}

// put stores what a lookup begun at generation gen found, unless the cache
// was emptied since (the lookup may have read what has changed) or is not
// trusted now.
func (c *keyCache) put(hash string, gen uint64, e cachedKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen || !c.watch.Live() {
		return
	}
	if len(c.entries) >= keyCacheEntries {
		clear(c.entries)
	}
	c.entries[hash] = e
}

// clear empties the cache: a key or a wallet may have changed.
func (c *keyCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.entries)
}
