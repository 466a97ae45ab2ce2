package screening

import (
	_ "embed"
	"math"
	"strconv"
	"strings"
)

// The general source of name frequencies across cultures: the rarity half
// of the person name lists of @faker-js/faker 10.6.0 (MIT), which lists
// the usual given, family and patronymic names of Arabic, Persian, Urdu,
// Hebrew, Russian, Ukrainian, Chinese, Korean, Turkish, Spanish,
// Portuguese, French, German, English and Indian (romanised and
// Devanagari) speakers. tools/namegen/rarity.mjs writes that half to
// testdata/namefreq_source.tsv, and TestNameFreqTable -update normalises
// each name as the matcher does and writes namefreq.tsv, which the binary
// embeds. The other half generates the evaluation's synthetic customers
// (tools/namegen/generate.mjs), so they are not measured on names this
// table marks.
//
// A list's lack of counts is not a lack of information: each list holds
// the names its culture uses most, a short list only the most used ones,
// and a name several cultures list is shared across them.

//go:embed namefreq.tsv
var nameFreqTable string

// generalFreq is what the source says of one name part (by fold).
type generalFreq struct {
	// locales is the number of locales that list the part.
	locales uint8
	// share is the part's highest share of one locale's list (1/size of
	// the list): the chance a name drawn from that culture's list is it.
	share float32
}

// generalNames maps the fold of a name part to what the source says of it.
var generalNames = parseNameFreq(nameFreqTable)

// parseNameFreq reads the embedded table: fold, locales, share in parts
// per 100,000, tab-separated, after a header line.
func parseNameFreq(s string) map[string]generalFreq {
	m := map[string]generalFreq{}
	for i, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if i == 0 || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			panic("screening: namefreq.tsv: bad line " + strconv.Itoa(i+1))
		}
		loc, err1 := strconv.Atoi(f[1])
		per, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || loc < 1 || loc > 255 {
			panic("screening: namefreq.tsv: bad line " + strconv.Itoa(i+1))
		}
		m[f[0]] = generalFreq{locales: uint8(loc), share: float32(per) / 1e5}
	}
	return m
}

// How the general source marks a very common name.
const (
	// sourceLocales is the number of locales the source reads: a part's
	// chance in the source's cultures as a whole is its share in those
	// that list it, spread over all of them.
	sourceLocales = 18
	// rareChance is the chance under which a part is as informative as a
	// part the source does not list (one person in 10,000).
	rareChance = 1e-4
	// veryCommonInformation is the information at or under which a part
	// is a very common name: a chance of about one in 1,000 or more in the
	// source's cultures (Maria, David, Ali, Manuel: names several
	// cultures list; or a name of a list of a few dozen).
	veryCommonInformation = 0.75
)

// generalInformation is how much being this part says of a person across
// cultures, relative to a rare part: its information content in the
// source, ln(1/chance), over that of a part of chance rareChance; 1 for a
// part the source does not list or lists as rare.
//
// It only marks very common parts (veryCommon). Lowering the weight of
// common parts in the name score by it was measured and not kept: it
// raised the alerts on the generated customers' tuning half (65 to 69 of
// 67,649 without country), because a common part the two names do not
// share then weighs less too (docs/screening.md).
func generalInformation(t *token) float64 {
	if t.particle || t.title || t.acronym {
		return 1 // not names: partWeight weighs them
	}
	f, ok := generalNames[t.fold]
	if !ok {
		return 1
	}
	chance := float64(f.locales) * float64(f.share) / sourceLocales
	if chance <= rareChance {
		return 1
	}
	return math.Log(chance) / math.Log(rareChance)
}

// veryCommon reports whether the general source makes t a very common
// name.
func veryCommon(t *token) bool { return generalInformation(t) <= veryCommonInformation }
