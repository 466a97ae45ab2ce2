package server

import (
	"runtime"
	"testing"
	"time"

	"kycd/kyc"
)

// TestRateLimiterMemoryDoesNotGrowWithLimit: a key's window costs the same
// whatever its limit. The first limiter kept one timestamp per allowed
// request, so --rpm 2000000000 asked for ~48 GB at the key's first request.
func TestRateLimiterMemoryDoesNotGrowWithLimit(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cost := func(limit int) uint64 {
		l := newRateLimiter(func() time.Time { return at })
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		w := l.windowFor(&kyc.APIKey{ID: "k", RPMOverride: &limit})
		if ok, _, _, _ := w.take(at); !ok {
			t.Fatalf("limit %d: first request refused", limit)
		}
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(w)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := cost(60), cost(1_000_000)
	if large > 16<<10 || large > 2*small+1024 {
		t.Errorf("a window for 1,000,000 requests/min allocated %d bytes (60/min: %d); want a small constant", large, small)
	}
}

// TestRateLimiterHugeLimits: limits far above the maximum the CLI accepts
// (rows written before the cap) neither crash nor refuse.
func TestRateLimiterHugeLimits(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, limit := range []int{2_000_000_000, 99999999999999, 1<<63 - 1} {
		l := newRateLimiter(func() time.Time { return at })
		w := l.windowFor(&kyc.APIKey{ID: "k", RPMOverride: &limit})
		for i := range 1000 {
			if ok, remaining, _, _ := w.take(at.Add(time.Duration(i) * time.Millisecond)); !ok || remaining != limit-i-1 {
				t.Fatalf("limit %d, request %d: ok %v remaining %d", limit, i+1, ok, remaining)
			}
		}
	}
}

// BenchmarkRateLimiterTake: one admission decision of a key at the pro
// limit, its window full of recent requests.
func BenchmarkRateLimiterTake(b *testing.B) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	limit := 1000
	l := newRateLimiter(func() time.Time { return at })
	w := l.windowFor(&kyc.APIKey{ID: "k", RPMOverride: &limit})
	i := 0
	for b.Loop() {
		w.take(at.Add(time.Duration(i) * 7 * time.Millisecond))
		i++
	}
}
