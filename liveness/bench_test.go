//go:build unix

package liveness

import (
	"sort"
	"syscall"
	"testing"
	"time"

	"kycd/face"
)

// BenchmarkAnalyzeSession times Analyze on a six-frame session of real
// frames (two per step: straight, turn right, turn left; 478×268 JPEGs,
// decoding excluded) plus the passive models on the chosen selfie: the
// server's work per selfie. It reports the median and 99th percentile of
// the wall time, and the CPU time per session (user + system, all
// threads), which a busy shared machine inflates less: on an idle machine
// with 2 cores the wall time is at least half of it. Run with -cpu 2 for
// the two cores.
func BenchmarkAnalyzeSession(b *testing.B) {
	ch := Challenge{Moves: []Move{TurnRight, TurnLeft}}
	var frames []Frame
	for s, names := range [][]string{
		{"live_p1_03_frontal", "live_p1_08_frontal"}, {"live_p1_01_right", "live_p1_04_right"}, {"live_p1_05_left", "live_p1_07_down"},
	} {
		for _, n := range names {
			frames = append(frames, Frame{Step: s, Image: liveFrame(b, n)})
		}
	}
	opened := time.Now()
	tm := Timing{Opened: opened, Deadline: opened.Add(Deadline), Received: opened.Add(8 * time.Second)}
	if _, err := Analyze(ch, frames[:1], tm); err != nil { // load the models
		b.Fatal(err)
	}
	var times []time.Duration
	cpu0 := cpuTime()
	for b.Loop() {
		start := time.Now()
		r, err := Analyze(ch, frames, tm)
		if err != nil {
			b.Fatal(err)
		}
		if s := r.Verdict.Selfie; s >= 0 {
			if _, err := face.PassiveScores(frames[s].Image, r.Observations[s].Face); err != nil {
				b.Fatal(err)
			}
		}
		times = append(times, time.Since(start))
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(len(times)), "cpu-ms/session")
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	pct := func(p float64) float64 {
		return float64(times[min(len(times)-1, int(p*float64(len(times))))].Milliseconds())
	}
	b.ReportMetric(pct(0.5), "p50-ms/session")
	b.ReportMetric(pct(0.99), "p99-ms/session")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
