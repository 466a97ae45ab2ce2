package pdf417

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system time: on a machine shared
// with other work, wall-clock time per image measures the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
