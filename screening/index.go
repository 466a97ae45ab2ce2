package screening

import (
	"math"
	"sync"
)

// Index finds the entities of one list whose names resemble a query
// without comparing the query with every name.
//
// It works on the list's vocabulary, the distinct name parts: a query part
// is looked up by its folded form, by its one-deletion neighbours (so one
// typo or one transliteration difference still finds the part), and by
// its consonant skeleton (for abjad scripts). Each similar vocabulary part
// leads, through a posting list, to the names that contain it. Query parts
// are taken rarest first, and parts so common that their postings would
// dominate the work only confirm candidates found another way.
type Index struct {
	entities []Entity
	names    []indexedName
	tokenIDs []int32 // the parts of every name, in name order
	vocab    []token
	idf      []float32
	postings [][]int32 // vocab id → name ids
	byText   map[string]int32
	byFold   map[string][]int32
	byDel    map[string][]int32 // one-deletion variants of folds
	// Consonant skeletons, kept apart by script: a Latin query looks up
	// only abjad parts by skeleton and an abjad query only Latin ones
	// (within one script, folds and deletions find the parts).
	bySkel      map[string][]int32 // abjad parts
	bySkelLatin map[string][]int32 // other parts
	maxIDF      float32

	accPool sync.Pool
}

// indexedName holds no pointers (its parts are a range of tokenIDs), so
// the garbage collector never scans the million of them a big list has.
type indexedName struct {
	entity int32
	name   int16 // index in Entity.Names
	ntok   uint16
	start  int32 // first part in Index.tokenIDs
}

func (ix *Index) nameTokens(in *indexedName) []int32 {
	return ix.tokenIDs[in.start : in.start+int32(in.ntok)]
}

// BuildIndex indexes the entities' names. The entities must not be changed
// afterwards; the index keeps them.
func BuildIndex(entities []Entity) *Index {
	ix := &Index{
		entities:    entities,
		byText:      map[string]int32{},
		byFold:      map[string][]int32{},
		byDel:       map[string][]int32{},
		bySkel:      map[string][]int32{},
		bySkelLatin: map[string][]int32{},
	}
	for e := range entities {
		for n, name := range entities[e].Names {
			if n > math.MaxInt16 {
				break
			}
			toks := normalize(name.Full)
			if len(toks) == 0 {
				continue
			}
			if len(toks) > math.MaxUint16 {
				toks = toks[:math.MaxUint16]
			}
			id := int32(len(ix.names))
			ids := make([]int32, 0, len(toks)+1)
			for _, t := range toks {
				ids = append(ids, ix.intern(t))
			}
			// Joined forms of adjacent parts when one is short or a
			// particle, so "Binladen" finds "Bin Laden".
			for i := 0; i+1 < len(toks); i++ {
				if toks[i].particle || len(toks[i].text) <= 3 || len(toks[i+1].text) <= 3 {
					j := makeToken(toks[i].text+toks[i+1].text, toks[i].abjad)
					ids = append(ids, ix.intern(j))
				}
			}
			ix.names = append(ix.names, indexedName{entity: int32(e), name: int16(n), ntok: uint16(len(toks)), start: int32(len(ix.tokenIDs))})
			ix.tokenIDs = append(ix.tokenIDs, ids[:len(toks)]...)
			for _, v := range dedupe(ids) {
				ix.postings[v] = append(ix.postings[v], id)
			}
		}
	}
	n := float64(len(ix.names)) + 1
	ix.idf = make([]float32, len(ix.vocab))
	for v := range ix.vocab {
		ix.idf[v] = float32(math.Log(n / float64(len(ix.postings[v]))))
	}
	ix.maxIDF = float32(math.Log(n))
	size := len(ix.names)
	ix.accPool.New = func() any { return newAccumulator(size) }
	return ix
}

func (ix *Index) intern(t token) int32 {
	if id, ok := ix.byText[t.text]; ok {
		return id
	}
	id := int32(len(ix.vocab))
	ix.vocab = append(ix.vocab, t)
	ix.postings = append(ix.postings, nil)
	ix.byText[t.text] = id
	ix.byFold[t.fold] = append(ix.byFold[t.fold], id)
	if len(t.fold) >= 4 {
		for _, d := range deletions(t.fold) {
			ix.byDel[d] = append(ix.byDel[d], id)
		}
	}
	skels := ix.bySkelLatin
	if t.abjad {
		skels = ix.bySkel
	}
	if len(t.skel) >= 2 {
		skels[t.skel] = append(skels[t.skel], id)
	}
	if len(t.skel0) >= 2 {
		skels[t.skel0] = append(skels[t.skel0], id)
	}
	return id
}

// Len is the number of entities.
func (ix *Index) Len() int { return len(ix.entities) }

// NameCount is the number of indexed names (primary names and aliases).
func (ix *Index) NameCount() int { return len(ix.names) }

// deletions returns s with each one byte removed, deduplicated.
func deletions(s string) []string {
	out := make([]string, 0, len(s))
	for i := 0; i < len(s); i++ {
		if i > 0 && s[i] == s[i-1] {
			continue
		}
		out = append(out, s[:i]+s[i+1:])
	}
	return out
}

func dedupe(ids []int32) []int32 {
	out := ids[:0:0]
	for _, id := range ids {
		seen := false
		for _, o := range out {
			if o == id {
				seen = true
				break
			}
		}
		if !seen {
			out = append(out, id)
		}
	}
	return out
}

// similar is one vocabulary part resembling a query part.
type similar struct {
	vocab int32
	sim   float32
}

// minTokenSim is the similarity below which two name parts are treated as
// different. Chosen with bench/screening-eval.
const minTokenSim = 0.82

// lookup returns the vocabulary parts that resemble q.
func (ix *Index) lookup(q *token) []similar {
	var out []similar
	seen := map[int32]bool{}
	try := func(ids []int32) {
		for _, v := range ids {
			if seen[v] {
				continue
			}
			seen[v] = true
			if s := tokenSim(q, &ix.vocab[v]); s >= minTokenSim {
				out = append(out, similar{v, float32(s)})
			}
		}
	}
	if id, ok := ix.byText[q.text]; ok {
		try([]int32{id})
	}
	try(ix.byFold[q.fold])
	if len(q.fold) >= 3 {
		try(ix.byDel[q.fold])
		for _, d := range deletions(q.fold) {
			try(ix.byFold[d])
			if len(d) >= 4 {
				try(ix.byDel[d])
			}
		}
	}
	skels := ix.bySkel
	if q.abjad {
		skels = ix.bySkelLatin
	}
	if len(q.skel) >= 2 {
		try(skels[q.skel])
	}
	if len(q.skel0) >= 2 {
		try(skels[q.skel0])
	}
	return out
}

// accumulator collects candidate names for one query; it is reused
// through a pool because a dense array is much faster than a map for
// lists of a million names.
type accumulator struct {
	score   []float32
	touched []int32
}

func newAccumulator(n int) *accumulator {
	return &accumulator{score: make([]float32, n)}
}

func (a *accumulator) add(name int32, w float32) {
	if a.score[name] == 0 {
		a.touched = append(a.touched, name)
	}
	a.score[name] += w
}

func (a *accumulator) reset() {
	for _, n := range a.touched {
		a.score[n] = 0
	}
	a.touched = a.touched[:0]
}
