package api

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter keeps a token bucket per client address and forgets addresses
// that have been quiet for a while, so its memory stays bounded.
type limiter struct {
	perMinute int
	burst     int

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

const forgetAfter = 10 * time.Minute

func newLimiter(perMinute, burst int) *limiter {
	return &limiter{perMinute: perMinute, burst: burst, buckets: make(map[string]*bucket)}
}

// take spends one token of addr's bucket and returns 0, or returns how long
// to wait when the bucket is empty (spending nothing).
func (l *limiter) take(addr string) time.Duration {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > forgetAfter {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > forgetAfter {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b := l.buckets[addr]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.burst)}
		l.buckets[addr] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d
	}
	return 0
}
