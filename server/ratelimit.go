package server

import (
	"cmp"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"kycd/kyc"
)

// rateLimiter enforces "N requests per minute" per key as a sliding window:
// in no 60-second window does a key get more than N requests through. (A
// token bucket or GCRA holding a minute's allowance would let through
// nearly 2N in the first minute: N at once, then one per 60/N seconds.)
//
// Each key keeps sliding-window counters: one per second of the last
// minute, each with the time of its newest request. Memory per key is
// fixed whatever N (the first version kept one timestamp per allowed
// request: ~48 GB for --rpm 2000000000). A counter goes on counting until
// its newest request is a minute old, so the limit is never exceeded; the
// price is that older requests of the same second leave the window up to
// one second late.
type rateLimiter struct {
	now  func() time.Time
	mu   sync.Mutex
	keys map[string]*window
}

// windowSlots is one counter per second of a minute, plus the second that
// is still running.
const windowSlots = 61

type window struct {
	mu    sync.Mutex
	limit int
	slots [windowSlots]rateSlot
}

// rateSlot counts the accepted requests of one second.
type rateSlot struct {
	sec    int64 // the Unix second counted; slot index is sec % windowSlots
	n      int64
	newest int64 // UnixNano of the last request counted here
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
		w = &window{limit: limit}
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
	t := now.UnixNano()
	// live: the slots holding a request less than a minute old.
	var live [windowSlots]*rateSlot
	nLive, total := 0, int64(0)
	for i := range w.slots {
		s := &w.slots[i]
		if s.n > 0 && t < s.newest+int64(time.Minute) {
			live[nLive] = s
			nLive++
			total += s.n
		}
	}
	if total < int64(w.limit) {
		sec := now.Unix()
		s := &w.slots[sec%windowSlots]
		if s.sec != sec {
			// The slot last counted a second at least 61 s ago, so its
			// newest request has left the window.
			*s = rateSlot{sec: sec}
		}
		if s.n == 0 {
			live[nLive] = s
			nLive++
		}
		s.n++
		s.newest = max(s.newest, t)
		total++
		ok = true
	}
	slots := live[:nLive]
	for _, s := range slots {
		reset = max(reset, time.Duration(s.newest+int64(time.Minute)-t))
	}
	if !ok {
		// The next request fits once enough of the oldest counters leave.
		slices.SortFunc(slots, func(a, b *rateSlot) int { return cmp.Compare(a.newest, b.newest) })
		excess := total - int64(w.limit) + 1
		for _, s := range slots {
			excess -= s.n
			if excess <= 0 {
				retry = time.Duration(s.newest + int64(time.Minute) - t)
				break
			}
		}
	}
	return ok, int(max(int64(w.limit)-total, 0)), reset, retry
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
