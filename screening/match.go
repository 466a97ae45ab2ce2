package screening

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// Query is the person being screened.
type Query struct {
	Name    string // full name as given, any script
	DOB     string // optional, YYYY-MM-DD (or YYYY)
	Country string // optional, ISO 3166-1 alpha-2
	// Schemas restricts the entity kinds matched; empty means people and
	// entities of unknown kind, which is what AML checks and KYC screen.
	Schemas []Schema
}

// Match is one listed entity that resembles the query.
type Match struct {
	Entity      *Entity
	MatchedName Name
	Score       float64
	Features    Features
}

// Features explain a score: how each part of the query name was matched,
// and how date of birth and country moved the score.
type Features struct {
	NameScore     float64     `json:"nameScore"`
	QueryCoverage float64     `json:"queryCoverage"`
	NameCoverage  float64     `json:"nameCoverage"`
	Conflict      bool        `json:"conflict"` // each name has a part the other lacks
	Tokens        []TokenPair `json:"tokens"`
	DOB           string      `json:"dob"` // exact, year, near, mismatch, unknown
	DOBFactor     float64     `json:"dobFactor"`
	Country       string      `json:"country"` // match, mismatch, unknown
	CountryFactor float64     `json:"countryFactor"`
	// MixedScript: a word of the query mixes letters of several scripts
	// (Latin with a Cyrillic look-alike), which honest names rarely do;
	// the look-alikes were folded before matching.
	MixedScript bool `json:"mixedScript"`
	// WeakEvidence: the name matched through a single weak alignment and
	// nothing stronger; its name score was scaled by 0.75.
	WeakEvidence bool `json:"weakEvidence"`
}

// TokenPair says which list name part a query name part was matched to.
type TokenPair struct {
	Query      string  `json:"query"`
	Listed     string  `json:"listed"`
	Similarity float64 `json:"similarity"`
	// Weak: a joined, skeleton-only, initial or short-in-long alignment.
	Weak bool `json:"weak"`
}

// Search tuning; chosen with bench/screening-eval.
const (
	// queryWeight is the share of the name score given to how much of the
	// query is found in the listed name; the rest is how much of the
	// listed name is found in the query. Customers omit middle names more
	// often than lists add them, so the query side weighs more.
	queryWeight = 0.65
	// commonPostings is the posting volume above which a query part only
	// confirms candidates found through rarer parts.
	commonPostings = 20000
	// maxCandidates bounds the names fully scored per query.
	maxCandidates = 200
)

// Search returns the entities scoring at least threshold, best first, at
// most limit of them.
func (ix *Index) Search(q Query, threshold float64, limit int) []Match {
	qt := ix.splitJoined(normalize(q.Name))
	if len(qt) == 0 || len(ix.names) == 0 {
		return nil
	}
	mixed := false
	for i := range qt {
		mixed = mixed || qt[i].mixed
	}
	units := ix.queryUnits(qt)
	acc := ix.accPool.Get().(*accumulator)
	defer func() { acc.reset(); ix.accPool.Put(acc) }()
	ix.gather(units, acc)

	// Prune against the weight the list could match at all: a query part
	// found nowhere in the list must not push every candidate out.
	var total float32
	for _, u := range units {
		if !u.join && len(u.similar) > 0 {
			total += u.weight
		}
	}
	// Only names sharing enough of the query are ranked; sorting every
	// touched name would cost more than scoring the best.
	// They are ranked by an estimate of their name score (how much of the
	// query and how much of the name the shared parts cover), so that of
	// the many names sharing one common part (Ahmad, Aleksandr) the short
	// ones, which a second part with a typo may complete, come first.
	// The estimate is computed once per name, not in the comparisons: a
	// common part of a list of a million names touches thousands.
	type cand struct {
		n   int32
		est float32
	}
	cands := make([]cand, 0, 64)
	for _, n := range acc.touched {
		if a := acc.score[n]; a >= 0.3*total {
			cands = append(cands, cand{n, queryWeight*min(1, a/total) + (1-queryWeight)*min(1, a/ix.nameWeight[n])})
		}
	}
	if len(cands) > 4*maxCandidates {
		// Only the best maxCandidates are scored: keep those whose
		// estimate falls in the top bins of a histogram holding at least
		// that many (the order sorted below is the same), so a common
		// part's thousands of names are not all sorted.
		const bins = 1024
		var hist [bins + 1]int32
		bin := func(e float32) int { return int(min(max(e, 0), 1) * bins) }
		for _, c := range cands {
			hist[bin(c.est)]++
		}
		cut, n := bins, int32(0)
		for ; cut > 0; cut-- {
			if n += hist[cut]; n >= maxCandidates {
				break
			}
		}
		kept := cands[:0]
		for _, c := range cands {
			if bin(c.est) >= cut {
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	slices.SortFunc(cands, func(a, b cand) int {
		switch {
		case a.est > b.est:
			return -1
		case a.est < b.est:
			return 1
		}
		return int(a.n - b.n)
	})
	if len(cands) > maxCandidates {
		cands = cands[:maxCandidates]
	}
	best := map[int32]Match{}
	for _, c := range cands {
		n := c.n
		in := &ix.names[n]
		ent := &ix.entities[in.entity]
		if !schemaAllowed(ent.Schema, q.Schemas) {
			continue
		}
		f := ix.scoreName(qt, units, in)
		f.MixedScript = mixed
		f.DOB, f.DOBFactor = compareDOB(q.DOB, ent.DOBs)
		f.Country, f.CountryFactor = compareCountry(q.Country, ent.Countries)
		score := f.NameScore * f.DOBFactor * f.CountryFactor
		if weakName(ent.Names[in.name].Type) {
			score *= 0.95
		}
		if score < threshold {
			continue
		}
		if prev, ok := best[in.entity]; ok && prev.Score >= score {
			continue
		}
		best[in.entity] = Match{Entity: ent, MatchedName: ent.Names[in.name], Score: round3(score), Features: f}
	}
	out := make([]Match, 0, len(best))
	for _, m := range best {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Entity.ID < out[j].Entity.ID
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

func weakName(t NameType) bool { return t == Weak }

func schemaAllowed(s Schema, allowed []Schema) bool {
	if len(allowed) == 0 {
		return s == Person || s == Unknown || s == ""
	}
	for _, a := range allowed {
		if a == s {
			return true
		}
	}
	return false
}

// unit is a query part (or two adjacent parts joined) with the
// vocabulary parts it resembles.
type unit struct {
	tok     token
	weight  float32
	similar []similar
	volume  int
	join    bool
}

func (ix *Index) queryUnits(qt []token) []unit {
	units := make([]unit, 0, len(qt)*2)
	add := func(t token, join bool) {
		u := unit{tok: t, join: join}
		if len(t.text) > 1 {
			u.similar = ix.lookup(&t)
		}
		// A part the list does not know weighs like a rare part, but not
		// the rarest: it may be noise (a typo in a particle, a title).
		u.weight = 0.8 * ix.maxIDF
		var bestSim float32
		for _, s := range u.similar {
			u.volume += len(ix.postings[s.vocab])
			if s.sim > bestSim {
				bestSim, u.weight = s.sim, ix.idf[s.vocab]
			}
		}
		u.weight *= partWeight(&t)
		units = append(units, u)
	}
	for _, t := range qt {
		add(t, false)
	}
	for i := 0; i+1 < len(qt); i++ {
		j := makeToken(qt[i].text+qt[i+1].text, qt[i].abjad)
		j.han = qt[i].han || qt[i+1].han
		add(j, true)
	}
	return units
}

// splitJoined splits a query part that the list does not know but that is
// two parts it knows written together (SergeiLavrov, PolPot): the listed
// name has them apart, and only apart does each find its counterpart.
func (ix *Index) splitJoined(qt []token) []token {
	var out []token
	for i, t := range qt {
		if len(t.text) < 6 || t.abjad || ix.known(t.fold) || ix.nearlyKnown(&t) {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		split := false
		for k := 3; k <= len(t.text)-3; k++ {
			l, r := t.text[:k], t.text[k:]
			if particles[l] || particles[r] || !ix.known(fold(l)) || !ix.known(fold(r)) {
				continue
			}
			a, b := makeToken(l, false), makeToken(r, false)
			if !a.particle && !b.particle {
				if out == nil {
					out = append([]token(nil), qt[:i]...)
				}
				a.mixed, b.mixed = t.mixed, t.mixed
				out = append(out, a, b)
				split = true
				break
			}
		}
		if !split && out != nil {
			out = append(out, t)
		}
	}
	if out == nil {
		return qt
	}
	return out
}

func (ix *Index) known(fold string) bool { return ix.byFold.has(hashKey(fold)) }

// nearlyKnown: the list has a part one typo from t (a misspelt name is not
// two names written together: HASHIMOOT is Hashimoto, not Hashim + Oot).
func (ix *Index) nearlyKnown(t *token) bool {
	for _, s := range ix.lookup(t) {
		if s.sim >= 0.9 {
			return true
		}
	}
	return false
}

// titleWeight is the share of a part's weight a title keeps: it says a
// little about who someone is (a Haji made the pilgrimage), much less than
// a name.
const titleWeight = 0.3

// partWeight lowers the weight of particles, titles and initials, which
// say little about who someone is.
func partWeight(t *token) float32 {
	switch {
	case t.particle:
		return 0.1
	case t.title:
		return titleWeight
	case len(t.text) == 1:
		return 0.3
	case len(t.text) == 2:
		return 0.5
	}
	return 1
}

// gather accumulates, per name, the weight of the query parts it shares.
func (ix *Index) gather(units []unit, acc *accumulator) {
	order := make([]int, 0, len(units))
	for i := range units {
		if len(units[i].similar) > 0 && !units[i].tok.particle {
			order = append(order, i)
		}
	}
	sort.Slice(order, func(a, b int) bool { return units[order[a]].volume < units[order[b]].volume })
	generated := false
	for _, i := range order {
		u := &units[i]
		if u.volume > commonPostings && generated {
			ix.confirm(u, acc)
			continue
		}
		for _, s := range u.similar {
			w := ix.simWeight(u, s)
			for _, n := range ix.postings[s.vocab] {
				acc.add(n, w)
			}
		}
		generated = true
	}
}

// simWeight is what a similar part adds to the names holding it: the
// query part's weight, but no more than the similar part's own (a rare
// query part that folds like the particle Al must not give every name
// with an Al the weight of a rare name), times the similarity.
func (ix *Index) simWeight(u *unit, s similar) float32 {
	return min(u.weight, ix.idf[s.vocab]*partWeight(&ix.vocab[s.vocab])) * s.sim
}

// confirm adds a common part's weight only to names already found,
// walking whichever is shorter: the part's postings or the found names.
func (ix *Index) confirm(u *unit, acc *accumulator) {
	if u.volume < 3*len(acc.touched) {
		for _, s := range u.similar {
			w := ix.simWeight(u, s)
			for _, n := range ix.postings[s.vocab] {
				if acc.score[n] != 0 {
					acc.score[n] += w
				}
			}
		}
		return
	}
	for _, n := range acc.touched {
		for _, v := range ix.nameTokens(&ix.names[n]) {
			for _, s := range u.similar {
				if s.vocab == v {
					acc.score[n] += ix.simWeight(u, s)
				}
			}
		}
	}
}

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
	}
	var took []accepted
	anchored := false // an exact or nearly exact name part was found
	for _, p := range pairs {
		if qUsed[p.qi] > 0 || qUsed[p.qj] > 0 {
			continue
		}
		var listed string
		a := accepted{qi: p.qi, c: -1, sim: p.sim, weak: p.weak}
		if p.c < 0 {
			c := -p.c - 1
			if cUsed[c] > 0 || cUsed[c+1] > 0 {
				continue
			}
			cUsed[c], cUsed[c+1] = p.sim, p.sim
			listed = ix.vocab[ctoks[c]].text + " " + ix.vocab[ctoks[c+1]].text
		} else {
			if cUsed[p.c] > 0 {
				continue
			}
			cUsed[p.c] = p.sim
			listed = ix.vocab[ctoks[p.c]].text
			a.c = p.c
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
	for _, a := range took {
		count(&qt[a.qi], a.sim, a.weak)
	}
	// A query part left over that closely matches a listed part another
	// query part took repeats that part: the list wrote the name once
	// (MATUQ MOHAMMED MATUQ is indexed as Matuq Mohammed) or the customer
	// twice with a typo. It is covered, not missing. The same holds for a
	// listed part repeated (MOHAMED OMAR MOHAMED asked as Mohamed Omar),
	// below.
	for i := range qt {
		if qUsed[i] == 0 && bestAny[i] >= weakPart {
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
		case c > first && c < last:
			w *= middleWeight
		}
		cw += w
		cs += w * credit(cUsed[c])
	}
	f := Features{Tokens: tokens}
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
	if strong == 0 && weak < 2 {
		f.WeakEvidence = true
		f.NameScore *= weakEvidenceFactor
	}
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
	case q.abjad != c.abjad && !q.abjad:
		// A Latin query's vowels were thrown away to compare.
		return true
	case q.abjad != c.abjad:
		// An abjad query has only its consonants: enough when there
		// are three or more.
		return min(len(q.skel), len(c.skel)) < 3
	case joined:
		// Two short parts written together fit many long ones (Li Wei
		// ~ Ivey, Zhang Wei ~ Fangwei).
		return min(len(q.text), len(c.text)) < 8
	}
	short, long := min(len(q.text), len(c.text)), max(len(q.text), len(c.text))
	return short == 1 || short <= 4 && long >= 2*short
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

// compareDOB compares a query date of birth with a listed entity's.
func compareDOB(q string, listed []string) (string, float64) {
	if len(q) < 4 || len(listed) == 0 || atoi4(q) < 0 {
		return "unknown", 1
	}
	best, factor := "mismatch", 0.6
	qy := q[:4]
	for _, d := range listed {
		if len(d) < 4 {
			continue
		}
		switch {
		case d == q:
			return "exact", 1
		case d[:4] == qy && (len(d) == 4 || len(q) == 4 || strings.HasPrefix(q, d) || strings.HasPrefix(d, q)):
			best, factor = "year", 1
		case d[:4] == qy && factor < 0.9:
			best, factor = "year", 0.9 // same year, different day: often a typo
		case yearsApart(d[:4], qy) == 1 && factor < 0.85:
			best, factor = "near", 0.85
		}
	}
	return best, factor
}

func yearsApart(a, b string) int {
	x, y := atoi4(a), atoi4(b)
	if x < 0 || y < 0 {
		return 99
	}
	if x > y {
		return x - y
	}
	return y - x
}

func atoi4(s string) int {
	n := 0
	for i := 0; i < 4; i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// compareCountry: a matching country confirms; a different one lowers the
// score a little only, because lists mix nationality, residence and
// birth place.
func compareCountry(q string, listed []string) (string, float64) {
	if q == "" || len(listed) == 0 {
		return "unknown", 1
	}
	for _, c := range listed {
		if strings.EqualFold(c, q) {
			return "match", 1
		}
	}
	return "mismatch", 0.9
}

func round3(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}

// CompareNames scores how alike two person names are with the screening
// matcher (transliteration, order, variants, typos), in [0,1]: the name
// score a list holding only b would give a query for a.
func CompareNames(a, b string) float64 {
	ix := BuildIndex([]Entity{{ID: "b", Schema: Person, Names: []Name{{Full: b, Type: Primary}}}})
	ms := ix.Search(Query{Name: a}, 0, 1)
	if len(ms) == 0 {
		return 0
	}
	return ms[0].Features.NameScore
}
