package screening

// The alignment of a query name with one listed name: which parts pair
// up, how similar each pair is, and the score and features that follow.

import (
	"math"
	"sort"
)

// scoreName aligns the query parts with the listed name's parts, the most
// similar pairs first, each part used once. A query join (two adjacent
// parts written together) may stand for one listed part, and a listed
// part may stand for two joined query parts.
func (ix *Index) scoreName(qt []token, units []unit, in *indexedName) Features {
	ctoks := ix.nameTokens(in)
	type pair struct {
		qi, qj int // query parts covered (qj = qi for a single part)
		c      int
		sim    float64
		weak   bool // see weakAlignment
	}
	var pairs []pair
	for c, v := range ctoks {
		ct := &ix.vocab[v]
		for i := range qt {
			if s := tokenSim(&qt[i], ct); s >= minTokenSim {
				pairs = append(pairs, pair{i, i, c, s, weakAlignment(&qt[i], ct, false)})
			}
		}
		for i := 0; i+1 < len(qt); i++ {
			// A join ending in a particle (Abd al, Abu al) is the
			// start of the next name, not a name: Abdallah is not
			// the Abd al- of Abd al-Karim.
			if qt[i+1].particle {
				continue
			}
			if s := tokenSim(&units[len(qt)+i].tok, ct); s >= minTokenSim {
				pairs = append(pairs, pair{i, i + 1, c, s, weakAlignment(&units[len(qt)+i].tok, ct, true)})
			}
		}
	}
	// Listed adjacent parts joined against one query part. The join is
	// built only for query parts of about its length that start alike:
	// building tokens is the expensive part of scoring.
	for c := 0; c+1 < len(ctoks); c++ {
		a, b := &ix.vocab[ctoks[c]], &ix.vocab[ctoks[c+1]]
		if b.particle {
			continue // see the query joins above
		}
		var j *token
		for i := range qt {
			q := &qt[i]
			if d := len(q.fold) - len(a.fold) - len(b.fold); d < -2 || d > 2 || q.fold[0] != a.fold[0] && q.abjad == a.abjad {
				continue
			}
			if j == nil {
				t := makeToken(a.text+b.text, a.abjad)
				j = &t
			}
			if s := tokenSim(q, j); s >= minTokenSim {
				pairs = append(pairs, pair{i, i, -(c + 1), s, weakAlignment(q, j, true)})
			}
		}
	}
	// The most similar pairs first; of equally similar ones, those at
	// about the same place in both names (ABD LALAH … ABDEL RAHMAN: the
	// second Abd is the listed Abd, the first starts the misspelt
	// Abdallah).
	place := func(p *pair) float64 {
		c := p.c
		if c < 0 {
			c = -c - 1
		}
		return math.Abs(float64(p.qi)/float64(len(qt)) - float64(c)/float64(len(ctoks)))
	}
	sort.SliceStable(pairs, func(a, b int) bool {
		if pairs[a].sim != pairs[b].sim {
			return pairs[a].sim > pairs[b].sim
		}
		return place(&pairs[a]) < place(&pairs[b])
	})
	// The best single-part similarity of each query part, for repeats.
	bestAny := make([]float64, len(qt))
	for _, p := range pairs {
		if p.qi == p.qj && p.c >= 0 && p.sim > bestAny[p.qi] {
			bestAny[p.qi] = p.sim
		}
	}

	qUsed := make([]float64, len(qt))
	cUsed := make([]float64, len(ctoks))
	// qWeight is each query part's weight: its unit's, except for a part
	// matched as a misspelling of a listed part, which weighs what that
	// part does (a part the list does not know weighs like a rare one).
	qWeight := make([]float32, len(qt))
	for i := range qt {
		qWeight[i] = units[i].weight
	}
	asListed := func(i, c int) {
		qWeight[i] = ix.idf[ctoks[c]] * partWeight(&ix.vocab[ctoks[c]])
	}
	var tokens []TokenPair
	type accepted struct {
		qi, c   int // c: the listed part of a single-part pair, else -1
		sim     float64
		weak    bool
		upgrade bool // see below
		joined  bool // two parts written together on one side
		across  bool // an abjad part and a Latin one
	}
	var took []accepted
	anchored := false // an exact or nearly exact name part was found
	for _, p := range pairs {
		if qUsed[p.qi] > 0 || qUsed[p.qj] > 0 {
			continue
		}
		var listed string
		a := accepted{qi: p.qi, c: -1, sim: p.sim, weak: p.weak, joined: p.qi != p.qj || p.c < 0}
		if p.c < 0 {
			c := -p.c - 1
			if cUsed[c] > 0 || cUsed[c+1] > 0 {
				continue
			}
			cUsed[c], cUsed[c+1] = p.sim, p.sim
			listed = ix.vocab[ctoks[c]].text + " " + ix.vocab[ctoks[c+1]].text
			a.across = qt[p.qi].abjad != ix.vocab[ctoks[c]].abjad
		} else {
			if cUsed[p.c] > 0 {
				continue
			}
			cUsed[p.c] = p.sim
			listed = ix.vocab[ctoks[p.c]].text
			a.c = p.c
			a.across = qt[p.qi].abjad != ix.vocab[ctoks[p.c]].abjad
			// Short parts one typo apart (SBA and SABA, AIZ and AZIZ)
			// get little from Jaro–Winkler: they count as a leftover
			// pair would, when an exact part anchors the match.
			a.upgrade = p.qi == p.qj && p.sim < leftoverSim && nearSpelling(&qt[p.qi], &ix.vocab[ctoks[p.c]])
		}
		qUsed[p.qi], qUsed[p.qj] = p.sim, p.sim
		q := qt[p.qi].text
		if p.qj != p.qi {
			q += " " + qt[p.qj].text
		}
		tokens = append(tokens, TokenPair{Query: q, Listed: listed, Similarity: round3(p.sim), Weak: p.weak})
		took = append(took, a)
		if t := &qt[p.qi]; p.sim >= 0.95 && !p.weak && !t.particle && !t.title {
			anchored = true
		}
	}
	for k, a := range took {
		if a.upgrade && anchored {
			took[k].sim, took[k].weak = leftoverSim, true
			qUsed[a.qi], cUsed[a.c] = leftoverSim, leftoverSim
			asListed(a.qi, a.c)
			tokens[k].Similarity, tokens[k].Weak = leftoverSim, true
		}
	}
	// generalOnly: every pair found (particles and titles aside) pairs a
	// very common name across cultures on one side or the other (see
	// veryCommon): a listed Latin part and an abjad query part are two
	// spellings, and either may be the one the general source lists.
	generalOnly, generalFound := true, false
	pairCommon := func(q *token, c int, joined bool) {
		if q.particle || q.title {
			return
		}
		generalFound = true
		// Two parts written together are not one name of the source.
		if joined || !veryCommon(q) && !ix.veryCommon[ctoks[c]] {
			generalOnly = false
		}
	}
	for _, a := range took {
		pairCommon(&qt[a.qi], a.c, a.joined)
	}
	strong, weak, titled := 0, 0, 0
	count := func(t *token, sim float64, isWeak bool) {
		switch {
		case t.particle:
		case isWeak:
			weak++
		case sim < weakPart:
		case t.title:
			titled++
		default:
			strong++
		}
	}
	// skel counts the weak alignments across an abjad and Latin: parts
	// found through their consonant skeleton alone.
	skel := 0
	for _, a := range took {
		count(&qt[a.qi], a.sim, a.weak)
		if a.weak && a.across && !qt[a.qi].particle {
			skel++
		}
	}
	// A query part left over that closely matches a listed part another
	// query part took repeats that part: the list wrote the name once
	// (MATUQ MOHAMMED MATUQ is indexed as Matuq Mohammed) or the customer
	// twice with a typo. It is covered, not missing. The same holds for a
	// listed part repeated (MOHAMED OMAR MOHAMED asked as Mohamed Omar),
	// below.
	// A syllable written in Chinese characters or Hangul is a character:
	// one left over that reads like a part another took is another
	// character read alike (韩 and 涵 are both Han), not the name written
	// twice.
	for i := range qt {
		if qUsed[i] == 0 && bestAny[i] >= weakPart && !qt[i].han {
			qUsed[i] = bestAny[i]
		}
	}
	// A part left over on each side, one typo apart in a way the
	// similarity of short parts does not show (OAR for OMAR, SAH for
	// SHAH, HMED for AHMED), is that part misspelt, when an exact part
	// anchors the match.
	if anchored {
		for i := range qt {
			if qUsed[i] > 0 || qt[i].particle {
				continue
			}
			for c, v := range ctoks {
				ct := &ix.vocab[v]
				if cUsed[c] == 0 && (!ct.particle || len(qt[i].text) >= 3) && nearSpelling(&qt[i], ct) {
					qUsed[i], cUsed[c] = leftoverSim, leftoverSim
					asListed(i, c)
					tokens = append(tokens, TokenPair{Query: qt[i].text, Listed: ct.text, Similarity: leftoverSim, Weak: true})
					pairCommon(&qt[i], c, false)
					count(&qt[i], leftoverSim, true)
					break
				}
			}
		}
	}
	// (After the leftover pairs: NOEL MAA MATA has a MATA for each.)
	for c, v := range ctoks {
		if cUsed[c] == 0 {
			for c2, v2 := range ctoks {
				if v2 == v && cUsed[c2] > 0 {
					cUsed[c] = cUsed[c2]
					break
				}
			}
		}
	}
	// Every part the customer gave was found (titles and particles aside),
	// two or more of them, one surely a name.
	full := strong >= 1 && strong+titled+weak >= 2
	for i := range qt {
		if !qt[i].particle && !qt[i].title && qUsed[i] < weakPart {
			full = false
		}
	}
	var qw, qs float64
	for i := range qt {
		w := float64(qWeight[i])
		qw += w
		qs += w * credit(qUsed[i])
	}
	// Listed parts left unmatched between two matched ones are middle
	// names the customer did not give (KHALED, Abdulbaqi Mohammed asked
	// as Khaled Mohammed): they count half. All unmatched listed parts
	// count half too when every part of the query was found, two or
	// more of them surely: customers leave out middle names and second
	// family names (ZULUAGA LINDO, Francisco Javier is Francisco Lindo)
	// far more often than they add parts. And when the customer gave the
	// listed name's first and last parts and nothing else, the parts
	// between are middle names for sure (EL HADI, Mustapha Nasri Ben Abdul
	// Kader Ait asked as Mustapha Hadi): they count a quarter.
	first, last := len(ctoks), -1
	for c := range ctoks {
		if cUsed[c] > 0 {
			first, last = min(first, c), max(last, c)
		}
	}
	f := Features{Tokens: tokens, commonOnly: ix.commonOnly(ctoks, cUsed), generalOnly: generalOnly && generalFound}
	// A listed part left unmatched is forgiven as a middle name the
	// customer did not give only when the customer's name was found
	// spelled: two parts spelled, or no part found through its consonant
	// skeleton alone in another script. A two-part abjad name of which
	// one part meets a Latin part by skeleton (علی is l-y, and Alai,
	// Yulia, Al-Ayy are l-y too) is not sure enough of its own parts to
	// say that what the listed name has besides is a middle name.
	forgive := strong >= 2 || skel == 0
	full = full && forgive
	bounds := full && first < last && first == ix.edge(ctoks, 0, 1) && last == ix.edge(ctoks, len(ctoks)-1, -1)
	var cw, cs float64
	for c, v := range ctoks {
		w := float64(ix.idf[v] * partWeight(&ix.vocab[v]))
		switch {
		case cUsed[c] > 0:
		case bounds:
			w *= innerWeight
		case full:
			w *= omittedWeight
		case c > first && c < last && forgive:
			w *= middleWeight
		}
		cw += w
		cs += w * credit(cUsed[c])
	}
	if qw > 0 {
		f.QueryCoverage = qs / qw
	}
	if cw > 0 {
		f.NameCoverage = cs / cw
	}
	f.NameScore = queryWeight*f.QueryCoverage + (1-queryWeight)*f.NameCoverage
	// A part on each side that matches nothing on the other is a
	// conflict (Ali vs Salim Benghalem): more likely another person than
	// an omitted middle name.
	if unmatched(qt, qUsed) && unmatchedVocab(ix, ctoks, cUsed) {
		f.Conflict = true
		f.NameScore *= conflictFactor
	}
	// One weak alignment and nothing else is too little to report: a
	// joined or skeleton-only match can cover a whole short name by
	// chance (璐 刘 ~ ABU LULU through "luliu", William Owen ~ عبد المنان
	// through the skeleton of "williamowen").
	// The customer's parts found only as one join standing for one listed
	// part, with listed parts left, are one name found, however well
	// spelled: two short names written together fit a longer one by
	// chance (a two-part Hebrew name against the given name of a
	// two-part listed name). It counts as one weak alignment.
	if len(took) == 1 && took[0].joined && unmatchedVocab(ix, ctoks, cUsed) {
		strong, weak = 0, 1
	}
	if strong == 0 && weak < 2 {
		f.WeakEvidence = true
		f.NameScore *= weakEvidenceFactor
	}
	// Two weak alignments and nothing spelled may be another person
	// whose names share skeletons (שירי שלם and Zeir Salem): Search
	// keeps such a record under the threshold unless the date of birth
	// or the country supports it (see supportWeak).
	f.weakOnly = strong == 0 && weak >= 2
	f.QueryCoverage, f.NameCoverage, f.NameScore = round3(f.QueryCoverage), round3(f.NameCoverage), round3(f.NameScore)
	return f
}

// weakAlignment says whether aligning query part q with listed part c
// (joined: one of them is two parts written together) rests on little
// evidence: a Latin query against an abjad spelling (skeleton only), an
// abjad query with a skeleton of under three consonants, two short parts
// joined, an initial, or a short part (a one-syllable Chinese name) inside
// a part twice its length.
func weakAlignment(q, c *token, joined bool) bool {
	switch {
	case q.abjad != c.abjad:
		// Across an abjad and Latin, a skeleton alone is weak (Muhammad
		// and Mahmoud are both m-h-m-d); the long vowels the abjad part
		// writes, found in the Latin one, make it a spelled match.
		// A join is weaker still: it needs two written long vowels
		// confirmed (ولی جان, w-l-ī j-ā-n, is Walijan).
		if joined {
			return !spelledJoinAcross(q, c)
		}
		return !spelledAcross(q, c)
	case joined:
		// Two short parts written together fit many long ones (Li Wei
		// ~ Ivey, Zhang Wei ~ Fangwei).
		return min(len(q.text), len(c.text)) < 8
	}
	short, long := min(len(q.text), len(c.text)), max(len(q.text), len(c.text))
	return short == 1 || short <= 4 && long >= 2*short
}

// commonShare is the share of a list's names a part must appear in to be
// common by the list's own count; minCommonNames the number of names a list
// needs for its count to say so (in a list of ten names every part is
// common).
const (
	commonShare    = 0.003
	minCommonNames = 1000
)

// common reports whether listed part v is a name many people share: the
// canonical form of a name with many spellings (Muhammad, Husain: see
// variants), a very common name across cultures by the general source (see
// namefreq.go), or a part in at least commonShare of a large list's names.
func (ix *Index) common(v int32) bool {
	if ix.vocab[v].canon || ix.veryCommon[v] {
		return true
	}
	n := len(ix.names)
	return n >= minCommonNames && float64(len(ix.postings[v])) >= commonShare*float64(n)
}

// commonOnly: the listed parts the query found (particles and titles
// aside) are all common ones.
func (ix *Index) commonOnly(ctoks []int32, cUsed []float64) bool {
	found := false
	for c, v := range ctoks {
		t := &ix.vocab[v]
		if cUsed[c] == 0 || t.particle || t.title {
			continue
		}
		if !ix.common(v) {
			return false
		}
		found = true
	}
	return found
}

// weakEvidenceFactor scales the name score of a record matched through one
// weak alignment and nothing stronger, so it stays under any sensible
// threshold (a perfect such match scores 0.75).
const weakEvidenceFactor = 0.75

// middleWeight is the share of its weight an unmatched listed part between
// two matched ones keeps in the listed name's coverage; omittedWeight the
// share any unmatched listed part keeps when the whole query was found.
const (
	middleWeight  = 0.5
	omittedWeight = 0.5
	innerWeight   = 0.25
)

// leftoverSim is the similarity given to a leftover pair (see scoreName),
// as to a four-letter part with one typo: found, well under an exact part.
const leftoverSim = 0.9

// edge returns the index of the first part from i on (step 1) or the
// last from i back (step -1) that is not a particle or a title: the
// boundary parts of a name.
func (ix *Index) edge(ids []int32, i, step int) int {
	for ; i >= 0 && i < len(ids); i += step {
		if t := &ix.vocab[ids[i]]; !t.particle && !t.title {
			return i
		}
	}
	return -1
}

// nearSpelling reports whether two parts are one typo apart as written or
// folded, or one typo from a variant spelling of the other's canonical
// form (OAR ~ umar through Omar), the shorter of two letters or more.
func nearSpelling(q, c *token) bool {
	if q.abjad != c.abjad || min(len(q.text), len(c.text)) < 2 || max(len(q.text), len(c.text)) < 3 {
		return false
	}
	// A syllable written in Chinese characters or Korean Hangul is a
	// character: one letter more in its romanisation is another one (成
	// Cheng is not 陈 Chen), as in tokenSim.
	if q.han || c.han {
		return false
	}
	return oneEdit(q.text, c.text) || oneEdit(q.fold, c.fold) || variantEdit(q, c) > 0
}

// weakPart is the similarity under which a matched part still counts as
// unmatched for conflicts (Ali ~ Salim is 0.82).
const weakPart = 0.86

// conflictFactor scales the name score when both names have a part the
// other lacks.
const conflictFactor = 0.93

func unmatched(ts []token, used []float64) bool {
	for i := range ts {
		if used[i] < weakPart && !ts[i].particle && !ts[i].title {
			return true
		}
	}
	return false
}

func unmatchedVocab(ix *Index, ids []int32, used []float64) bool {
	for c, v := range ids {
		t := &ix.vocab[v]
		if used[c] < weakPart && !t.particle && !t.title {
			return true
		}
	}
	return false
}

// credit turns a part similarity into the share of the part's weight it
// earns: exact parts earn all of it, near misses (one typo) most of it,
// and similarity near the cut-off little.
func credit(sim float64) float64 {
	if sim <= 0 {
		return 0
	}
	c := (sim - 0.7) / 0.25
	if c > 1 {
		return 1
	}
	return c
}
