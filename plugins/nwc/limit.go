package nwc

import (
	"sync"
	"time"
)

// limiter is a token bucket per key (a connection): perMinute tokens a
// minute, up to burst at once.
type limiter struct {
	perMinute, burst float64
	now              func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(perMinute, burst int, now func() time.Time) *limiter {
	return &limiter{perMinute: float64(perMinute), burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

// allow takes a token of key's bucket; false when it is empty.
func (l *limiter) allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) > 100_000 {
			l.buckets = map[string]*bucket{} // forget idle keys rather than grow
		}
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.at).Minutes()*l.perMinute)
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
