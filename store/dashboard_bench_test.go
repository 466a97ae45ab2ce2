package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"kycd/kyc"
)

// BenchmarkDeskStats measures the review dashboard's figures (queue,
// overdue, decisions per day, automation rate, median and p90 decision
// time, per-reviewer counts: every query of one page) on the 100,000
// requests of BenchmarkListVerifications' database, over windows of 7, 30
// and 90 days (the whole data set). It reports p50 and p95 per page.
//
//	CGO_ENABLED=0 go test ./store -run '^$' -bench DeskStats -benchtime 300x
func BenchmarkDeskStats(b *testing.B) {
	ctx := context.Background()
	seedBench(b)
	s, org := benchSeed.s, benchSeed.org
	end := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC) // the seed spans 1 August to 30 October
	windows := []time.Duration{7 * 24 * time.Hour, 30 * 24 * time.Hour, 90 * 24 * time.Hour}
	times := make([]time.Duration, 0, b.N)
	var last *DeskStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := windows[i%len(windows)]
		t0 := time.Now()
		st, err := s.DeskStats(ctx, org, kyc.Live, end.Add(-w), end.Add(-24*time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		if w == windows[2] {
			last = st
		}
	}
	b.StopTimer()
	slices.Sort(times)
	pct := func(p float64) float64 { return float64(times[int(p*float64(len(times)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(pct(1), "max-ms")
	if last != nil {
		b.Logf("90 days: queue %d, overdue %d, decided %d (engine %d, person %d), median %ds, p90 %ds, %d reviewers",
			last.QueueDepth, last.Overdue, last.Total.Decided, last.Total.Engine, last.Total.Person, *last.MedianSeconds, *last.P90Seconds,
			len(last.Reviewers))
	}
}
