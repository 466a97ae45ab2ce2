package ocr

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The reader spreads its heaviest loops over the machine's cores: the
// portal's applicant waits on one read, and a read's wall time, not only
// its CPU time, is what the upload gate answers in. Every piece of work
// writes only its own slots and sums are taken afterwards in a fixed
// order, so a reading is the same bit for bit on one core or many.

// minChunk is the least work a goroutine is started for (cells or rows):
// below it the start costs more than it saves.
const minChunk = 8

// inChunks calls f on contiguous ranges [lo, hi) covering [0, n), one
// range per core at most, and returns when all are done.
func inChunks(n int, f func(lo, hi int)) {
	k := min(runtime.GOMAXPROCS(0), n/minChunk)
	if k <= 1 {
		if n > 0 {
			f(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	for c := range k {
		lo, hi := c*n/k, (c+1)*n/k
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// eachOf calls f(i) for every i in [0, n), as many at once as there are
// cores, each i as soon as a core is free (items of uneven cost).
func eachOf(n int, f func(i int)) {
	k := min(runtime.GOMAXPROCS(0), n)
	if k <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// both runs f(false) and f(true) at once when there are cores for it.
func both(f func(bool)) {
	if runtime.GOMAXPROCS(0) < 2 {
		f(false)
		f(true)
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f(true)
	}()
	f(false)
	wg.Wait()
}

// forwardAll runs the classifier on every cell and returns each one's
// probabilities (len None+1).
func forwardAll(net *Net, cells [][]float32) [][]float32 {
	out := make([][]float32, len(cells))
	inChunks(len(cells), func(lo, hi int) {
		tr := traces.Get().(*Trace)
		defer traces.Put(tr)
		for i := lo; i < hi; i++ {
			out[i] = make([]float32, None+1)
			net.Forward(cells[i], out[i], tr)
		}
	})
	return out
}

// traces keeps the classifier's scratch between calls: a read makes
// thousands of forwardAll calls, and a trace with its scratch is some
// 30 KB to allocate and clear each time. Forward overwrites every part
// of a trace it reads, so a reused one gives the same probabilities.
var traces = sync.Pool{New: func() any { return NewTrace() }}
