package store

import "testing"

// TestDecisionTimeBucket: seconds rounded down to two significant
// figures, as migration 0029 computes them in SQL, and the quantile read
// as the middle of its bucket.
func TestDecisionTimeBucket(t *testing.T) {
	for _, tc := range []struct{ in, bucket, width int64 }{
		{-5, 0, 1}, {0, 0, 1}, {59, 59, 1}, {99, 99, 1}, {100, 100, 10}, {109, 100, 10}, {999, 990, 10},
		{10800, 10000, 1000}, {97200, 97000, 1000}, {123456789, 120000000, 10000000}, {9999999999, 9990000000, 10000000},
	} {
		if got := DecisionTimeBucket(tc.in); got != tc.bucket {
			t.Errorf("DecisionTimeBucket(%d) = %d, want %d", tc.in, got, tc.bucket)
		}
		if got := bucketWidth(tc.bucket); tc.in >= 0 && got != tc.width {
			t.Errorf("bucketWidth(%d) = %d, want %d", tc.bucket, got, tc.width)
		}
	}
	hist := []timeBucket{{0, 1}, {10000, 1}, {97000, 1}}
	for q, want := range map[float64]int64{0.3: 0, 0.5: 10500, 0.9: 97500, 1: 97500} {
		if got := quantile(hist, 3, q); got == nil || *got != want {
			t.Errorf("quantile %.1f = %v, want %d", q, got, want)
		}
	}
	if quantile(nil, 0, 0.5) != nil {
		t.Error("a quantile of nothing")
	}
}
