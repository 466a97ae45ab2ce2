package portal

import (
	"crypto/sha256"
	"sync"
	"time"
)

// linkLimiter bounds the uploads of each portal link to n in any window
// (a sliding window: the times of the last n accepted uploads per link).
// A link is a bearer credential that anyone who has it can replay, so the
// bound is per link, whoever sends. Memory is bounded by the links used
// in the last window: idle ones are swept out.
type linkLimiter struct {
	n      int
	window time.Duration
	now    func() time.Time

	mu        sync.Mutex
	links     map[[sha256.Size]byte][]time.Time
	lastSweep time.Time
}

// newLinkLimiter returns a limiter of n per window; n < 0 limits nothing.
func newLinkLimiter(n int, window time.Duration, now func() time.Time) *linkLimiter {
	return &linkLimiter{n: n, window: window, now: now, links: map[[sha256.Size]byte][]time.Time{}}
}

// take admits one upload for token, or says how long until the next one
// would be admitted.
func (l *linkLimiter) take(token string) (ok bool, retry time.Duration) {
	if l.n < 0 {
		return true, 0
	}
	key := sha256.Sum256([]byte(token)) // no link tokens kept in memory
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > l.window {
		for k, times := range l.links {
			if len(times) == 0 || now.Sub(times[len(times)-1]) >= l.window {
				delete(l.links, k)
			}
		}
		l.lastSweep = now
	}
	times := l.links[key]
	for len(times) > 0 && now.Sub(times[0]) >= l.window {
		times = times[1:]
	}
	if len(times) >= l.n {
		l.links[key] = times
		return false, times[0].Add(l.window).Sub(now)
	}
	l.links[key] = append(times, now)
	return true, 0
}
