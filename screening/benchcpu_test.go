package screening

import (
	"syscall"
	"testing"
	"time"
)

// cpuTimer reports the process's CPU time per operation beside the wall
// time: on a machine shared with other work, wall time per op swings with
// the load while CPU time stays close to the work done, so old and new
// code are compared on it (benchstat -col … cpu-ns/op).
type cpuTimer struct {
	b     *testing.B
	start time.Duration
}

func startCPU(b *testing.B) *cpuTimer {
	return &cpuTimer{b, processCPU()}
}

func (c *cpuTimer) stop() {
	if c.b.N > 0 {
		c.b.ReportMetric(float64(processCPU()-c.start)/float64(c.b.N), "cpu-ns/op")
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
