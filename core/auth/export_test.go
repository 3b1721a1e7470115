package auth

// Cached reports whether k's cache holds the key whose secret is secret.
func Cached(k *Keys, secret string) bool {
	k.cache.mu.RLock()
	defer k.cache.mu.RUnlock()
	_, ok := k.cache.entries[hashKey(secret)]
	return ok
}

// CacheLive reports whether k's cache is trusted now.
func CacheLive(k *Keys) bool { return k.cache.watch.Live() }
