package server

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"kycd/kyc"
)

// rateLimiter enforces "N requests per minute" per key as a sliding window:
// in no 60-second window does a key get more than N requests through. (A
// token bucket holding a minute's allowance would let through nearly 2N in
// the first minute: N at once, then one per 60/N seconds.) Each key keeps
// the times of its last N accepted requests in a ring.
type rateLimiter struct {
	now  func() time.Time
	mu   sync.Mutex
	keys map[string]*window
}

type window struct {
	mu    sync.Mutex
	limit int
	times []time.Time // ring of accepted request times, oldest at head
	head  int
	n     int
}

func newRateLimiter(now func() time.Time) *rateLimiter {
	return &rateLimiter{now: now, keys: map[string]*window{}}
}

func (l *rateLimiter) windowFor(key *kyc.APIKey) *window {
	limit := key.RequestsPerMinute()
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.keys[key.ID]
	if w == nil || w.limit != limit {
		w = &window{limit: limit, times: make([]time.Time, limit)}
		l.keys[key.ID] = w
	}
	return w
}

// take admits a request at now if the last minute holds fewer than limit
// requests. It returns how many remain, when the full allowance is back
// (reset) and, when refused, when the next request will be admitted.
func (w *window) take(now time.Time) (ok bool, remaining int, reset, retry time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.n > 0 && !now.Before(w.times[w.head].Add(time.Minute)) {
		w.head = (w.head + 1) % w.limit
		w.n--
	}
	if w.n < w.limit {
		w.times[(w.head+w.n)%w.limit] = now
		w.n++
		ok = true
	} else {
		retry = w.times[w.head].Add(time.Minute).Sub(now)
	}
	newest := w.times[(w.head+w.n-1)%w.limit]
	return ok, w.limit - w.n, newest.Add(time.Minute).Sub(now), retry
}

// rateLimit enforces the key's per-minute limit (spec §8) and sets
// RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds until the
// full allowance is back) on every response of a limited key.
func (s *Server) rateLimit(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		key := keyFrom(r.Context())
		win := s.limits.windowFor(key)
		if win.limit == 0 {
			return next(w, r) // unlimited (operator override)
		}
		ok, remaining, reset, retry := win.take(s.limits.now())
		h := w.Header()
		h.Set("RateLimit-Limit", strconv.Itoa(win.limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
		h.Set("RateLimit-Reset", strconv.Itoa(ceilSeconds(reset)))
		if !ok {
			s.metrics.rateLimited.Inc()
			secs := max(1, ceilSeconds(retry))
			h.Set("Retry-After", strconv.Itoa(secs))
			return authError(kyc.ERateLimited, kyc.ReasonRateLimited,
				"Rate limit of "+strconv.Itoa(win.limit)+" requests per minute exceeded. Retry after "+strconv.Itoa(secs)+" s.")
		}
		return next(w, r)
	}
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(d.Seconds()))
}
