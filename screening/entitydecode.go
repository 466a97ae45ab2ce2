package screening

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
)

// DecodeEntities decodes a list version's stored entity bodies (JSON, as
// aml.Import stores them) into a slice of count entities, in the order
// next yields them, for BuildIndex. next calls fn with each body in turn;
// the body is decoded later, by another goroutine, so next must not reuse
// its memory (store.LoadListEntities scans each into a new slice).
//
// A big list (OpenSanctions' default export: a million entities, several
// million names) is decoded by several goroutines at once, each entity
// into its own slot, so the order and the result do not depend on the
// scheduling. The strings lists repeat (name types, schemas, countries,
// programmes, dates of birth) are shared instead of held once per entity,
// and slices are trimmed to their length: what the screener holds is the
// entities for as long as the list is active.
//
// It returns ErrEntityCount when next yields another number of bodies
// than count (an import replaced the version meanwhile).
func DecodeEntities(count int, next func(fn func(body []byte) error) error) ([]Entity, error) {
	ents := make([]Entity, count)
	workers := min(runtime.GOMAXPROCS(0), 8)
	type batch struct {
		start  int
		bodies [][]byte
	}
	const batchSize = 256
	jobs := make(chan batch, 2*workers)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := newInterner()
			for b := range jobs {
				for k, body := range b.bodies {
					e := &ents[b.start+k]
					if err := json.Unmarshal(body, e); err != nil {
						fail(fmt.Errorf("entity %d: %w", b.start+k, err))
						continue
					}
					in.entity(e)
				}
			}
		}()
	}
	n := 0
	cur := batch{}
	err := next(func(body []byte) error {
		if n >= count {
			return ErrEntityCount
		}
		if cur.bodies == nil {
			cur = batch{start: n, bodies: make([][]byte, 0, batchSize)}
		}
		cur.bodies = append(cur.bodies, body)
		n++
		if len(cur.bodies) == batchSize {
			jobs <- cur
			cur = batch{}
		}
		return nil
	})
	if cur.bodies != nil {
		jobs <- cur
	}
	close(jobs)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if n != count {
		return nil, ErrEntityCount
	}
	return ents, nil
}

// ErrEntityCount: a list version yielded another number of entities than
// it records.
var ErrEntityCount = fmt.Errorf("list version: entity count differs from the version's")

// interner shares equal strings among the entities one goroutine decodes.
type interner struct {
	m map[string]string
}

// maxInterned bounds an interner: past it new strings are kept as they
// are (a list of a million distinct dates of birth would otherwise hold
// a map as big as the strings it saves).
const maxInterned = 1 << 16

func newInterner() *interner { return &interner{m: map[string]string{}} }

func (in *interner) str(s string) string {
	if v, ok := in.m[s]; ok {
		return v
	}
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}

func (in *interner) strs(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := make([]string, len(ss)) // exactly its length: the decoder's slice grew by doubling
	for i, s := range ss {
		out[i] = in.str(s)
	}
	return out
}

// entity shares e's repeated strings and trims its slices.
func (in *interner) entity(e *Entity) {
	e.Schema = Schema(in.str(string(e.Schema)))
	if len(e.Names) > 0 {
		names := make([]Name, len(e.Names))
		for i, n := range e.Names {
			names[i] = Name{Full: n.Full, Type: NameType(in.str(string(n.Type)))}
		}
		e.Names = names
	}
	e.DOBs = in.strs(e.DOBs)
	e.Countries = in.strs(e.Countries)
	e.Programs = in.strs(e.Programs)
	if len(e.Documents) > 0 && cap(e.Documents) != len(e.Documents) {
		e.Documents = append([]string(nil), e.Documents...)
	}
}
