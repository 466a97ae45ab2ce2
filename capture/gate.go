package capture

import (
	"context"
	"errors"
	"runtime"
	"time"

	"golang.org/x/sync/semaphore"
)

// EBusy is the code of a Gate's refusal when it stayed full for its whole
// wait: not a fault of the file, so the client should send it again.
const EBusy = "busy"

// Defaults of GateOptions.
const (
	DefaultGateMemory = DefaultMaxMemory
	DefaultGateWait   = 10 * time.Second
)

// GateOptions size a Gate. A zero field takes its default.
type GateOptions struct {
	// Concurrency bounds the decodes that run at once: decoding is CPU
	// work, so more than one per core only makes each slower while
	// holding its memory longer. Default runtime.GOMAXPROCS(0).
	Concurrency int
	// Memory bounds what the decodes running at once may hold together,
	// by their estimated cost (see Limits.MaxMemory); an upload that would
	// cost more on its own is refused. Default 128 MiB.
	Memory int64
	// Wait is how long an upload waits for room before it is refused with
	// EBusy. Default 10 s: a 16 MP photo takes a few seconds to decode,
	// turn, scale and encode on a busy core.
	Wait time.Duration
}

// Gate bounds the decoding of uploads across a process: how many run at
// once and how much memory they hold together. Without it, eight
// parallel uploads of a 300 KB PNG that decodes to 650 MB took a server
// from 42 MB to 5 GB. Waiting uploads hold only their bytes (at most
// Limits.MaxBytes each), never decoded pixels. A Gate is safe for
// concurrent use; one serves the whole process.
type Gate struct {
	slots  *semaphore.Weighted
	mem    *semaphore.Weighted
	memory int64
	wait   time.Duration
}

// NewGate returns a Gate for o.
func NewGate(o GateOptions) *Gate {
	if o.Concurrency <= 0 {
		o.Concurrency = runtime.GOMAXPROCS(0)
	}
	if o.Memory <= 0 {
		o.Memory = DefaultGateMemory
	}
	if o.Wait <= 0 {
		o.Wait = DefaultGateWait
	}
	return &Gate{slots: semaphore.NewWeighted(int64(o.Concurrency)), mem: semaphore.NewWeighted(o.Memory),
		memory: o.Memory, wait: o.Wait}
}

// errBusy is the refusal of an upload that found no room in time.
func errBusy() *Error {
	return &Error{Code: EBusy, Message: "Many photos are being checked right now. Please send yours again in a few seconds."}
}

// Process is Process of the upload src, already read (the caller holds
// it anyway, so it is not copied), with the decoding inside the gate. It
// refuses an upload whose estimated cost exceeds the gate's whole memory
// as well (ETooManyPixels), and returns an *Error with code EBusy when no
// room came free within the wait. ctx ends the wait early (the client
// went away); its error is then returned as it is. Without its own
// l.MaxMemory, one upload may take the gate's whole memory, so an operator
// who gives uploads more memory (kycd serve --upload-memory) lets larger
// ones through as well as more at once.
func (g *Gate) Process(ctx context.Context, src []byte, l Limits) (*Image, error) {
	if l.MaxMemory <= 0 {
		l.MaxMemory = g.memory
	}
	u, err := prepare(src, l.withDefaults(), g.memory)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, g.wait)
	defer cancel()
	// Slots first: an upload waiting for memory then holds a slot, so at
	// most Concurrency uploads ever hold or wait for memory.
	if err := g.slots.Acquire(wctx, 1); err != nil {
		return nil, g.waitError(ctx, err)
	}
	defer g.slots.Release(1)
	if err := g.mem.Acquire(wctx, u.cost); err != nil {
		return nil, g.waitError(ctx, err)
	}
	img, err := u.finish()
	g.mem.Release(u.cost)
	if u.cost >= collectAfter {
		// The decode's buffers are garbage now. Left to the pacer, the
		// heap would grow to twice what was live at the last collection,
		// which ran while such buffers were live: up to twice the gate's
		// memory on top of the rest of the server. Collecting now keeps
		// the peak near what the gate admits. A collection of a heap of
		// pixel buffers (no pointers to scan) costs milliseconds; the
		// decode took far longer.
		runtime.GC()
	}
	return img, err
}

// collectAfter is the estimated cost from which a finished decode is
// followed by a garbage collection: a few megapixels.
const collectAfter = 16 << 20

func (g *Gate) waitError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errBusy()
	}
	return err
}

// Run runs fn, a decode of an already stored image (width × height
// pixels) and work on its pixels, inside the gate, as Process runs an
// upload's: the portal reads a document photo's MRZ this way. It returns
// an *Error with code EBusy when no room came free within the wait.
func (g *Gate) Run(ctx context.Context, width, height int, fn func() error) error {
	// A decoded image in RGBA and the reader's gray copies (the portal
	// reads at the usual scale only: ocr.ReadAtUsualScale).
	cost := min(int64(width)*int64(height)*6, g.memory)
	wctx, cancel := context.WithTimeout(ctx, g.wait)
	defer cancel()
	if err := g.slots.Acquire(wctx, 1); err != nil {
		return g.waitError(ctx, err)
	}
	defer g.slots.Release(1)
	if err := g.mem.Acquire(wctx, cost); err != nil {
		return g.waitError(ctx, err)
	}
	err := fn()
	g.mem.Release(cost)
	if cost >= collectAfter {
		runtime.GC() // as in Process: keep the peak near what the gate admits
	}
	return err
}
