package screening

import (
	"math"
	"slices"
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
	byFold   keyIndex
	byDel    keyIndex // one-deletion variants of folds
	// Consonant skeletons, kept apart by script: a Latin query looks up
	// only abjad parts by skeleton and an abjad query only Latin ones
	// (within one script, folds and deletions find the parts).
	bySkel      keyIndex // abjad parts
	bySkelLatin keyIndex // other parts
	maxIDF      float32
	// veryCommon marks the parts the general source calls very common
	// names (see veryCommon).
	veryCommon []bool
	// nameWeight is the summed weight of each name's parts, to rank
	// candidates by how much of the name a query covers.
	nameWeight []float32

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
	ix := &Index{entities: entities, byText: map[string]int32{}}
	b := indexBuilder{ix: ix, words: map[wordKey][]int32{}}
	var ids []int32
	for e := range entities {
		for n, name := range entities[e].Names {
			if n > math.MaxInt16 {
				break
			}
			toks := b.tokens(name.Full)
			if len(toks) == 0 {
				// Not searchable (see Searchable): the import's count of
				// names leaves it out too.
				continue
			}
			if len(toks) > math.MaxUint16 {
				toks = toks[:math.MaxUint16]
			}
			id := int32(len(ix.names))
			ids = ids[:0]
			for _, t := range toks {
				ids = append(ids, ix.intern(t))
			}
			// Joined forms of adjacent parts when one is short or a
			// particle, so "Binladen" finds "Bin Laden".
			for i := 0; i+1 < len(toks); i++ {
				if toks[i].particle || len(toks[i].text) <= 3 || len(toks[i+1].text) <= 3 {
					ids = append(ids, b.internJoined(toks[i].text+toks[i+1].text, toks[i].abjad))
				}
			}
			ix.names = append(ix.names, indexedName{entity: int32(e), name: int16(n), ntok: uint16(len(toks)), start: int32(len(ix.tokenIDs))})
			ix.tokenIDs = append(ix.tokenIDs, ids[:len(toks)]...)
			for _, v := range dedupe(ids) {
				ix.postings[v] = append(ix.postings[v], id)
			}
		}
	}
	ix.byFold.freeze()
	ix.byDel.freeze()
	ix.bySkel.freeze()
	ix.bySkelLatin.freeze()
	n := float64(len(ix.names)) + 1
	ix.idf = make([]float32, len(ix.vocab))
	ix.veryCommon = make([]bool, len(ix.vocab))
	for v := range ix.vocab {
		ix.veryCommon[v] = veryCommon(&ix.vocab[v])
		// The list's own count only: lowering the weight of the parts the
		// general source calls common (generalWeight) raised the alerts
		// on the generated customers' tuning half (see namefreq.go), so
		// the source only marks them (veryCommon).
		ix.idf[v] = float32(math.Log(n / float64(max(1, len(ix.postings[v])))))
	}
	ix.maxIDF = float32(math.Log(n))
	ix.nameWeight = make([]float32, len(ix.names))
	for i := range ix.names {
		var w float32
		for _, v := range ix.nameTokens(&ix.names[i]) {
			w += ix.idf[v] * partWeight(&ix.vocab[v])
		}
		ix.nameWeight[i] = max(w, 1e-3)
	}
	size := len(ix.names)
	ix.accPool.New = func() any { return newAccumulator(size) }
	return ix
}

// indexBuilder normalizes a list's names through a cache of the tokens
// each word gave (lists repeat their words: Mohammed, Al, Ali), so a word
// is transliterated, folded and split once per build, not once per name.
type indexBuilder struct {
	ix    *Index
	words map[wordKey][]int32 // vocabulary ids of a word's tokens
	buf   []token
}

type wordKey struct {
	word string
	// afterParticle: the token before the word is a particle, which
	// changes how a title is read (see appendToken).
	afterParticle bool
}

// maxCachedWords bounds the word cache; past it the cache starts over, so
// a list of millions of distinct words does not hold them all twice.
const maxCachedWords = 1 << 18

// titleKey prefixes the byText key of a title token.
const titleKey = "\x01"

// markedKey prefixes the byText key of a word the whole name marked (see
// intern).
const markedKey = "\x02"

// particleSeed is the context "after a particle" for appendWord.
var particleSeed = []token{makeToken("al", false)}

// tokens is normalize(name), with each word's tokens taken from the
// cache when it has them.
func (b *indexBuilder) tokens(name string) []token {
	out := b.buf[:0]
	for _, raw := range splitWords(readingOrder(name)) {
		k := wordKey{raw, len(out) > 0 && out[len(out)-1].particle}
		if ids, ok := b.words[k]; ok {
			for _, id := range ids {
				out = append(out, b.ix.vocab[id])
			}
			continue
		}
		var seed []token
		if k.afterParticle {
			seed = particleSeed[:1:1]
		}
		ts := appendWord(seed, raw)[len(seed):]
		ids := make([]int32, len(ts))
		for i := range ts {
			ts[i].mixed = false // a property of queries; the index ignores it
			ids[i] = b.ix.intern(ts[i])
		}
		if len(b.words) >= maxCachedWords {
			clear(b.words)
		}
		b.words[k] = ids
		out = append(out, ts...)
	}
	b.buf = out
	return finishTokens(out, name)
}

// internJoined interns two adjacent parts written together.
func (b *indexBuilder) internJoined(text string, abjad bool) int32 {
	if id, ok := b.ix.byText[text]; ok {
		return id
	}
	return b.ix.intern(makeToken(text, abjad))
}

func (ix *Index) intern(t token) int32 {
	key := t.text
	if t.title {
		key = titleKey + key // a title and the same word as a name are two parts
	}
	if t.particle && !particles[t.text] || t.acronym {
		// A word a company name makes a particle (a legal form, a
		// descriptor) or an acronym is another part than the same word
		// as it was first read, before the whole name was.
		key = markedKey + key
	}
	if id, ok := ix.byText[key]; ok {
		return id
	}
	id := int32(len(ix.vocab))
	ix.vocab = append(ix.vocab, t)
	ix.postings = append(ix.postings, nil)
	ix.byText[key] = id
	ix.byFold.add(hashKey(t.fold), id)
	if len(t.fold) >= 4 {
		ix.byDel.addDeletions(t.fold, id)
	}
	skels := &ix.bySkelLatin
	if t.abjad {
		skels = &ix.bySkel
	}
	if len(t.skel) >= 2 {
		skels.add(hashKey(t.skel), id)
	}
	if len(t.skel0) >= 2 {
		skels.add(hashKey(t.skel0), id)
	}
	return id
}

// Len is the number of entities.
func (ix *Index) Len() int { return len(ix.entities) }

// NameCount is the number of indexed names (primary names and aliases).
func (ix *Index) NameCount() int { return len(ix.names) }

// Searchable reports whether a listed name gives the index anything to
// search: at least one letter or digit once transliterated. OFAC cuts its
// remarks at a fixed length, so an "a.k.a." at the end of one can be a
// fragment such as '@ (SDN 47682 on 2024-05-03), which no query can match.
func Searchable(name string) bool {
	for i := 0; i < len(name); i++ {
		// An ASCII letter or digit survives NFKC and transliteration,
		// so normalize's fallback keeps it: the common case needs no
		// normalizing.
		if c := name[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return true
		}
	}
	return len(normalize(name)) > 0
}

// SearchableNames is how many of the entity's names BuildIndex indexes:
// the figure an import reports, so that it is the one the screening
// service logs when it loads the list (Index.NameCount).
func (e *Entity) SearchableNames() int {
	n := 0
	for i, name := range e.Names {
		if i > math.MaxInt16 {
			break
		}
		if Searchable(name.Full) {
			n++
		}
	}
	return n
}

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
	var seenBuf [64]int32
	seen := seenBuf[:0]
	try := func(ids []int32) {
		for _, v := range ids {
			// A part with no names is one the word cache interned and
			// normalisation then merged away (Abd + Allah).
			if slices.Contains(seen, v) || len(ix.postings[v]) == 0 {
				continue
			}
			seen = append(seen, v)
			if s := tokenSim(q, &ix.vocab[v]); s >= minTokenSim {
				out = append(out, similar{v, float32(s)})
			}
		}
	}
	key := q.text
	if q.title {
		key = titleKey + key
	}
	if id, ok := ix.byText[key]; ok {
		try([]int32{id})
	}
	try(ix.byFold.get(hashKey(q.fold)))
	if len(q.fold) >= 3 {
		try(ix.byDel.get(hashKey(q.fold)))
		for i := 0; i < len(q.fold); i++ {
			if i > 0 && q.fold[i] == q.fold[i-1] {
				continue
			}
			d := hashWithout(q.fold, i)
			try(ix.byFold.get(d))
			if len(q.fold) >= 5 {
				try(ix.byDel.get(d))
			}
		}
	}
	// A spelling of a common name with a typo (MIHAMMED) finds the
	// canonical form the list holds (muhammad), which no spelling of the
	// list shows.
	if len(q.fold) >= 3 && !q.abjad {
		tryCanon := func(h uint64) {
			for _, c := range nearCanonical.get(h) {
				if id, ok := ix.byText[canonicalForms[c]]; ok {
					try([]int32{id})
				}
			}
		}
		tryCanon(hashKey(q.fold))
		for i := 0; i < len(q.fold); i++ {
			tryCanon(hashWithout(q.fold, i))
		}
	}
	// A letter dropped between two equal ones (DAARAH for DAWARAH)
	// leaves a double that folding merges: the fold is then two edits
	// from the listed one, but the letter doubled again is one.
	if len(q.fold) >= 4 {
		for i := 0; i < len(q.fold); i++ {
			if i+1 < len(q.fold) && q.fold[i] == q.fold[i+1] {
				continue
			}
			try(ix.byDel.get(hashDoubled(q.fold, i)))
		}
	}
	// Nothing close found: a typo can move a part two edits away once
	// folded (FAKRHZADEH: kh no longer folds to h; BOORDAI: oo folds to
	// u; AAL for SAAL folds to al), so the letters as written and each
	// one-letter deletion of them, as written and folded, are looked up.
	// Only for parts the list does not know closely, so it costs nothing
	// on the usual path.
	best := float32(0)
	for _, s := range out {
		best = max(best, s.sim)
	}
	if best < 0.9 && len(q.text) >= 3 && !q.abjad && !q.han {
		if q.text != q.fold {
			try(ix.byFold.get(hashKey(q.text)))
			try(ix.byDel.get(hashKey(q.text)))
		}
		for i := 0; i < len(q.text) && len(q.text) >= 4; i++ {
			if i > 0 && q.text[i] == q.text[i-1] {
				continue
			}
			raw := q.text[:i] + q.text[i+1:]
			for _, d := range [2]string{raw, fold(raw)} {
				try(ix.byFold.get(hashKey(d)))
				try(ix.byDel.get(hashKey(d)))
			}
		}
	}
	skels := &ix.bySkel
	if q.abjad {
		skels = &ix.bySkelLatin
	}
	if len(q.skel) >= 2 {
		try(skels.get(hashKey(q.skel)))
	}
	if len(q.skel0) >= 2 {
		try(skels.get(hashKey(q.skel0)))
	}
	return out
}

// canonicalForms are the canonical forms of variants; nearCanonical maps
// the fold of each of their spellings, and each one-deletion of it, to
// the canonical form's index there.
var canonicalForms, nearCanonical = func() ([]string, *keyIndex) {
	var forms []string
	for c := range spellings {
		if _, isTitle := titles[c]; !isTitle {
			forms = append(forms, c)
		}
	}
	slices.Sort(forms)
	k := &keyIndex{}
	for i, c := range forms {
		for _, sp := range append([]string{c}, spellings[c]...) {
			f := fold(sp)
			k.add(hashKey(f), int32(i))
			if len(f) >= 4 {
				k.addDeletions(f, int32(i))
			}
		}
	}
	k.freeze()
	return forms, k
}()

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
