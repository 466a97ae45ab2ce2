package screening

import (
	"slices"
	"sort"
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
	// WeakEvidence: the name matched through weak alignments only (a
	// single one, or several that neither the date of birth nor the
	// country supports); its name score was scaled by 0.75.
	WeakEvidence bool `json:"weakEvidence"`
	// weakOnly: two or more weak alignments and nothing spelled.
	weakOnly bool
	// CommonNamesOnly: the name matched in part, through very common names
	// only (each pair of parts found has one the general source calls very
	// common, see veryCommon), and neither the date of birth (exact or
	// same year) nor the country supports it; its name score was scaled by
	// commonEvidenceFactor.
	CommonNamesOnly bool `json:"commonNamesOnly"`
	// commonOnly: the name matched through common parts only.
	commonOnly bool
	// generalOnly: every pair found has a very common name across
	// cultures on one side (see scoreName).
	generalOnly bool
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
	qt := ix.splitJoined(normalizeWords(queryWords(q), q.Name))
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
		if len(ent.DOBs) == 0 && len(q.DOB) >= 4 && (f.commonOnly || f.QueryCoverage < 1 || f.NameCoverage < 1) {
			// Missing data is not agreement: a common name, or a name
			// matched in part, and a record without a date of birth to
			// tell its bearers apart.
			f.DOBFactor = missingDOBCommon
		}
		if f.DOB == "year" && spreadYears(ent.DOBs) && (f.commonOnly || f.QueryCoverage < 1 || f.NameCoverage < 1) {
			// A year among the span of years a record gives (born
			// 1968 to 1975) says about as little as no date: the
			// same holds as for a record without one.
			f.DOBFactor = min(f.DOBFactor, missingDOBCommon)
		}
		f.Country, f.CountryFactor = compareCountry(q.Country, ent.Countries)
		supportWeak(&f)
		supportCommon(&f)
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

// spreadYearsMin is the number of distinct birth years from which a record
// gives a span rather than a date of birth.
const spreadYearsMin = 3

// spreadYears: the record gives spreadYearsMin or more distinct birth years.
func spreadYears(dobs []string) bool {
	if len(dobs) < spreadYearsMin {
		return false
	}
	seen := map[string]bool{}
	for _, d := range dobs {
		if len(d) >= 4 {
			seen[d[:4]] = true
		}
	}
	return len(seen) >= spreadYearsMin
}

// missingDOBCommon is the date-of-birth factor of a name matched through
// common parts only, or matched in part, when the customer gave a date of
// birth and the listed record has none: the factor of a date one year
// apart (see compareDOB), since a date the record lacks agrees no better
// than a near one (it was 0.9 before issue 25's generated customers showed
// partial names of records without a date alerting on it alone).
const missingDOBCommon = 0.85

// supportWeak scales the name score of a record matched through weak
// alignments only unless the date of birth (exact or the same year) or the
// country agrees: names that share consonant skeletons are many, and
// without other evidence they are not the same person.
func supportWeak(f *Features) {
	if !f.weakOnly || f.DOB == "exact" || f.DOB == "year" || f.Country == "match" {
		return
	}
	f.WeakEvidence = true
	f.NameScore = round3(f.NameScore * weakEvidenceFactor)
}

// commonEvidenceFactor scales the name score of a record matched in part
// through very common names only, with no date of birth or country to
// support it: so scaled, even a name score of 1 stays under the default
// threshold (0.82). Set by that bound, not tuned.
const commonEvidenceFactor = 0.8

// supportCommon keeps under the threshold a record whose match rests on
// very common names alone: a customer called by two very common names
// shares them with many listed people, and a listed name found only in
// part through them tells nothing about who the customer is. A name found
// whole on both sides (every part of the query and of the listed name) is
// not a match in part, and an exact or same-year date of birth, or the
// country, is other evidence.
func supportCommon(f *Features) {
	if !f.generalOnly || f.QueryCoverage >= 1 && f.NameCoverage >= 1 ||
		f.DOB == "exact" || f.DOB == "year" || f.Country == "match" {
		return
	}
	f.CommonNamesOnly = true
	f.NameScore = round3(f.NameScore * commonEvidenceFactor)
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
