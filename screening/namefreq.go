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

// Rarity from the general source, tuned with bench/screening-eval on the
// tuning halves.
const (
	// sourceLocales is the number of locales the source reads: a part's
	// chance in the source's cultures as a whole is its share in those
	// that list it, spread over all of them.
	sourceLocales = 18
	// rareChance is the chance under which a part is as informative as a
	// part the source does not list (one person in 10,000).
	rareChance = 1e-4
	// minGeneralWeight bounds how much the source lowers a part's weight:
	// a common name still says something (Maria is not Olga).
	minGeneralWeight = 0.5
	// veryCommonWeight is the general weight at or under which a part is
	// a very common name (about one person in 1,000 or more of the
	// source's cultures: Maria, David, Ali, a name of a short list).
	veryCommonWeight = 0.75
)

// generalWeight is the share of its list weight a part keeps for being a
// common name across cultures: 1 for a part the source does not list, or
// lists as rare; down to minGeneralWeight for a name many cultures share.
// It is the part's information content in the source, ln(1/chance),
// relative to that of a rare part.
func generalWeight(t *token) float32 {
	if t.particle || t.title || t.acronym {
		return 1 // weighed by partWeight already
	}
	f, ok := generalNames[t.fold]
	if !ok {
		return 1
	}
	chance := float64(f.locales) * float64(f.share) / sourceLocales
	if chance <= rareChance {
		return 1
	}
	return float32(max(minGeneralWeight, math.Log(chance)/math.Log(rareChance)))
}

// veryCommon reports whether the general source makes t a very common
// name.
func veryCommon(t *token) bool { return generalWeight(t) <= veryCommonWeight }
