// Command screening-eval measures the name matcher on labelled data:
// the real UN, OFAC and PEP lists, the labelled sets of ../shared/data/eval,
// and variants and look-alikes generated from the lists themselves. It
// prints precision, recall and F1 per set at the chosen threshold and the
// precision/recall curve, then the goal figures of the "Screening, part 2"
// issue (see goals.go for how those sets are built).
//
//	go run ./bench/screening-eval [-data DIR] [-threshold 0.82]
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"kycd/internal/realdata"
	"kycd/screening"
)

func main() {
	data := flag.String("data", realdata.Dir(), "shared data folder with lists/ and eval/ (default: found beside the repository)")
	threshold := flag.Float64("threshold", screening.DefaultThreshold, "threshold to report")
	verbose := flag.Bool("v", false, "print misses and false positives")
	seeds := flag.String("seeds", "", "comma-separated extra seeds: perturbed sets built the same way from other draws (held-out checks)")
	genFile := flag.String("generated", generatedPath(), "generated customers CSV written by tools/namegen (skipped when absent outside CI)")
	genLimit := flag.Int("generated-limit", 0, "screen only the first N generated customers (0: all)")
	workers := flag.Int("workers", 0, "goroutines screening the generated customers (0: GOMAXPROCS)")
	before := flag.String("write-before", "", "write the goal table's figures to this file as the BEFORE baseline (give -commit)")
	commit := flag.String("commit", "", "the commit the -write-before figures were measured on")
	pairsOnly := flag.Bool("pairs", false, "only the labelled name pairs: F1 per half and the tuning half's errors (seconds, no lists)")
	genTune := flag.Bool("generated-tuning", false, "only the generated customers' tuning half: list its alerts with their alignments (the held-out half is not screened)")
	flag.Parse()
	if *genTune {
		if err := runGeneratedTuning(*data, *genFile, *threshold, *workers); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *pairsOnly {
		if err := runPairs(*data, *threshold); err != nil {
			log.Fatal(err)
		}
		return
	}
	var extra []uint64
	for _, f := range strings.Split(*seeds, ",") {
		if f = strings.TrimSpace(f); f != "" {
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				log.Fatalf("-seeds: %v", err)
			}
			extra = append(extra, n)
		}
	}
	opts := options{genFile: *genFile, genLimit: *genLimit, workers: *workers, writeBefore: *before, commit: *commit}
	if err := run(*data, *threshold, *verbose, extra, opts); err != nil {
		log.Fatal(err)
	}
}

// scored is one labelled query's best score: for a positive, the score of
// the expected entity (0 when not found); for a negative, the best score
// of any entity.
type scored struct {
	label string
	pos   bool
	score float64
	note  string
	// ambiguous: a perturbed query holding one name of the person by
	// construction (nameperturb.Ambiguous).
	ambiguous string
	// half: tuning or held-out (see split.go).
	half string
}

type set struct {
	name   string
	items  []scored
	policy string
}

func run(dir string, threshold float64, verbose bool, seeds []uint64, opts options) error {
	t0 := time.Now()
	un := mustParse(filepath.Join(dir, "lists/un_consolidated_2026-02-27.xml"), func(r io.Reader) ([]screening.Entity, error) { return screening.ParseUN(r) })
	sdn, err := openAll(dir, "lists/ofac_sdn_2021-07.csv", "lists/ofac_alt_2021-07.csv", "lists/ofac_add_2021-07.csv")
	if err != nil {
		return err
	}
	ofac, err := screening.ParseOFAC(sdn[0], sdn[1], sdn[2])
	if err != nil {
		return err
	}
	pep := mustParse(filepath.Join(dir, "lists/opensanctions_us_congress_peps_senzing.jsonl"), func(r io.Reader) ([]screening.Entity, error) {
		return screening.ParseSenzing(r, screening.PEP)
	})
	unIx, ofacIx, pepIx := screening.BuildIndex(un), screening.BuildIndex(ofac), screening.BuildIndex(pep)
	all := []*screening.Index{unIx, ofacIx, pepIx}
	fmt.Printf("lists: UN %d, OFAC %d, PEP %d entities; parsed and indexed in %s\n\n", len(un), len(ofac), len(pep), time.Since(t0).Round(time.Millisecond))

	var sets []set
	// 1. UN-listed individuals as customers present them: each must be
	// found in the UN list (any UN entity counts, the file names none).
	pos, err := readPeople(filepath.Join(dir, "eval/positives_un_untreated.csv"))
	if err != nil {
		return err
	}
	s1 := set{name: "UN individuals as customers (positives_un_untreated)", policy: "found in UN"}
	for _, p := range pos {
		best := 0.0
		for _, m := range unIx.Search(p.query(), 0.5, 1) {
			best = m.Score
		}
		s1.items = append(s1.items, scored{label: p.name, pos: true, score: best, half: half(p.name + "|" + p.dob)})
	}
	// 2. Customers on no list: every hit on any list is a false positive.
	var negatives []person
	positives := set{name: "positives", items: append([]scored(nil), s1.items...)}
	negCountry := set{name: "customers on no list, name, DOB and country", policy: "alerts"}
	for _, f := range []string{"negatives_global_dev.csv", "negatives_us_dev.csv"} {
		neg, err := readPeople(filepath.Join(dir, "eval", f))
		if err != nil {
			return err
		}
		negatives = append(negatives, neg...)
		for _, p := range neg {
			best, note := 0.0, ""
			for _, ix := range all {
				for _, m := range ix.Search(p.query(), 0.5, 1) {
					if m.Score > best {
						best, note = m.Score, m.MatchedName.Full
					}
				}
			}
			it := scored{label: p.name, pos: false, score: best, note: note, half: half(p.name + "|" + p.dob)}
			s1.items = append(s1.items, it)
			negCountry.items = append(negCountry.items, it)
		}
	}
	sets = append(sets, s1)
	sets = append(sets, generated(un, unIx, "UN"), generated(ofac, ofacIx, "OFAC"))
	pairs, err := namePairs(filepath.Join(dir, "eval/name_pairs_dev.csv"), false)
	if err != nil {
		return err
	}
	orgPairs, err := namePairs(filepath.Join(dir, "eval/name_pairs_dev.csv"), true)
	if err != nil {
		return err
	}
	sets = append(sets, pairs, orgPairs)
	pert := []set{perturbed(un, unIx, "UN", 1000, perturbSeed), perturbed(ofac, ofacIx, "OFAC", 1000, perturbSeed)}
	var held []set
	for _, seed := range seeds {
		held = append(held, perturbed(un, unIx, "UN", 1000, seed), perturbed(ofac, ofacIx, "OFAC", 1000, seed))
	}
	negNoCountry := negativesNoCountry(negatives, all)
	arabic := arabicToLatin(un)
	sets = append(sets, pert...)
	exactUN := exactNames(un, unIx, "UN")
	sets = append(sets, negNoCountry, arabic, exactUN)

	for _, s := range sets {
		report(s, threshold, verbose)
	}
	if verbose {
		for _, s := range held {
			report(s, threshold, verbose)
		}
	}
	reportSeeds(threshold, held)
	reportGoals(threshold, pert, negNoCountry, pairs, arabic)

	gen, err := readGenerated(opts.genFile, opts.genLimit)
	if err != nil {
		return err
	}
	var genRes []genResult
	if gen == nil {
		fmt.Printf("== generated customers: not run (%s absent; cd tools/namegen && npm ci && node generate.mjs)\n\n", opts.genFile)
	} else {
		t1 := time.Now()
		genRes = screenGenerated(gen, all, opts.workers)
		fmt.Printf("== generated customers: %d screened twice (without and with country) in %s\n", len(gen), time.Since(t1).Round(time.Millisecond))
		reportGenerated(genRes, threshold, verbose)
	}
	figs := goalTable(threshold, negNoCountry, negCountry, positives, pert[0], pert[1], exactUN, arabic, pairs, orgPairs, genRes)
	printTable(threshold, figs)
	if opts.writeBefore != "" {
		if err := writeBefore(opts.writeBefore, opts.commit, figs); err != nil {
			return err
		}
	}
	return nil
}

// perturbSeed seeds the perturbed goal sets (see goals.go); -seeds adds
// sets drawn with other seeds.
const perturbSeed = 2024

type person struct {
	name, dob, country string
}

func (p person) query() screening.Query {
	return screening.Query{Name: p.name, DOB: p.dob, Country: p.country}
}

// readPeople reads the eval people files (full_name, …, date_of_birth, …,
// nationality); nationality is a code or a country name.
func readPeople(path string) ([]person, error) {
	rows, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	var out []person
	for _, r := range rows[1:] {
		p := person{name: r[0], dob: r[5]}
		if c, ok := screening.CountryCode(r[7]); ok {
			p.country = c
		}
		if len(p.dob) != 4 && len(p.dob) != 10 {
			p.dob = ""
		}
		out = append(out, p)
	}
	return out, nil
}

// generated builds labelled queries from a list: variants of a listed
// person's name that must still find that person (token order, a dropped
// middle name, a typo, diacritics, a Cyrillic round trip, a joined
// particle), and chimeras — the given name of one listed person with the
// family name of another — that must find neither.
func generated(ents []screening.Entity, ix *screening.Index, list string) set {
	rng := rand.New(rand.NewPCG(42, uint64(len(ents))))
	s := set{name: "variants and look-alikes generated from " + list, policy: "expected entity"}
	var people []screening.Entity
	for _, e := range ents {
		if e.Schema == screening.Person && len(strings.Fields(e.Names[0].Full)) >= 2 {
			people = append(people, e)
		}
	}
	rng.Shuffle(len(people), func(i, j int) { people[i], people[j] = people[j], people[i] })
	if len(people) > 600 {
		people = people[:600]
	}
	for i, e := range people {
		name := e.Names[0].Full
		variant, how := mutate(rng, name, i)
		best := 0.0
		for _, m := range ix.Search(screening.Query{Name: variant}, 0.5, 20) {
			if m.Entity.ID == e.ID && m.Score > best {
				best = m.Score
			}
		}
		s.items = append(s.items, scored{label: name + " → " + variant, pos: true, score: best, note: how})

		// A look-alike: this person's first given name with another's
		// family name, a different person who shares a first name.
		other := people[(i+1)%len(people)]
		given := givenNames(name)
		family := familyName(other.Names[0].Full)
		// A look-alike must really be another name: skip it when the
		// borrowed family name resembles any part of this person's names
		// (the Al-Tikritis are many; Mohamed and Mohammad are one name).
		if given == "" || family == "" || resembles(e, family) || resembles(other, given) {
			continue
		}
		chimera := given + " " + family
		nbest, note := 0.0, ""
		for _, m := range ix.Search(screening.Query{Name: chimera}, 0.5, 20) {
			if (m.Entity.ID == e.ID || m.Entity.ID == other.ID) && m.Score > nbest {
				nbest, note = m.Score, m.MatchedName.Full
			}
		}
		s.items = append(s.items, scored{label: chimera, pos: false, score: nbest, note: note})
	}
	return s
}

func mutate(rng *rand.Rand, name string, i int) (string, string) {
	parts := strings.Fields(strings.NewReplacer(",", " ").Replace(name))
	switch i % 6 {
	case 0:
		rng.Shuffle(len(parts), func(a, b int) { parts[a], parts[b] = parts[b], parts[a] })
		return strings.Join(parts, " "), "reordered"
	case 1:
		if len(parts) >= 3 {
			return strings.Join(append([]string{parts[0]}, parts[2:]...), " "), "middle dropped"
		}
		return strings.ToLower(name), "lower case"
	case 2:
		longest := 0
		for j, p := range parts {
			if len(p) > len(parts[longest]) {
				longest = j
			}
			_ = p
		}
		p := []byte(parts[longest])
		if len(p) >= 5 {
			k := 1 + rng.IntN(len(p)-2)
			p[k] = "aeiou"[rng.IntN(5)]
			parts[longest] = string(p)
		}
		return strings.Join(parts, " "), "typo"
	case 3:
		return strings.NewReplacer("e", "é", "a", "á", "o", "ö", "E", "É", "A", "Á").Replace(name), "diacritics"
	case 4:
		return toCyrillic(name), "Cyrillic"
	default:
		return strings.NewReplacer("-", "", " AL ", " AL-", "Al ", "Al-").Replace(name), "punctuation/particles"
	}
}

// toCyrillic writes a Latin name in Russian Cyrillic letter by letter, the
// way a customer's Russian documents would.
func toCyrillic(s string) string {
	m := map[string]string{"shch": "щ", "sh": "ш", "ch": "ч", "kh": "х", "zh": "ж", "ts": "ц", "yu": "ю", "ya": "я",
		"a": "а", "b": "б", "v": "в", "g": "г", "d": "д", "e": "е", "z": "з", "i": "и", "y": "й", "k": "к", "l": "л",
		"m": "м", "n": "н", "o": "о", "p": "п", "r": "р", "s": "с", "t": "т", "u": "у", "f": "ф", "h": "х", "c": "к",
		"j": "дж", "q": "к", "w": "в", "x": "кс"}
	low := strings.ToLower(s)
	var b strings.Builder
	for i := 0; i < len(low); {
		done := false
		for _, n := range []int{4, 2, 1} {
			if i+n <= len(low) {
				if r, ok := m[low[i:i+n]]; ok {
					b.WriteString(r)
					i += n
					done = true
					break
				}
			}
		}
		if !done {
			b.WriteByte(low[i])
			i++
		}
	}
	return b.String()
}

// resembles reports whether part is close to some part of e's names.
func resembles(e screening.Entity, part string) bool {
	ix := screening.BuildIndex([]screening.Entity{e})
	for _, m := range ix.Search(screening.Query{Name: part, Schemas: []screening.Schema{e.Schema}}, 0, 1) {
		if m.Features.QueryCoverage >= 0.5 {
			return true
		}
	}
	return false
}

// givenNames and familyName split "LAST, First Middle" or "First Middle
// Last"; givenNames returns the first given name only.
func givenNames(n string) string {
	if last, first, ok := strings.Cut(n, ","); ok && strings.TrimSpace(last) != "" {
		if f := strings.Fields(first); len(f) > 0 {
			return f[0]
		}
		return ""
	}
	return strings.Fields(n)[0]
}

func familyName(n string) string {
	if last, _, ok := strings.Cut(n, ","); ok {
		return strings.TrimSpace(last)
	}
	f := strings.Fields(n)
	return f[len(f)-1]
}

// namePairs scores each labelled pair by indexing name2 alone and
// searching for name1: the person pairs, or the organisation pairs
// (Company, Organization, LegalEntity) searched as organisations.
func namePairs(path string, orgs bool) (set, error) {
	rows, err := readCSV(path)
	if err != nil {
		return set{}, err
	}
	s := set{name: "labelled name pairs (name_pairs_dev), persons", policy: "pair"}
	schema := screening.Person
	if orgs {
		s.name, schema = "labelled name pairs (name_pairs_dev), organisations", screening.Organization
	}
	for _, r := range rows[1:] {
		isOrg := r[1] == "Company" || r[1] == "Organization" || r[1] == "LegalEntity"
		if orgs && !isOrg || !orgs && r[1] != "Person" {
			continue
		}
		ix := screening.BuildIndex([]screening.Entity{{ID: "x", Schema: schema, Names: []screening.Name{{Full: r[3], Type: screening.Primary}}}})
		best := 0.0
		for _, m := range ix.Search(screening.Query{Name: r[2], Schemas: []screening.Schema{schema}}, 0.0, 1) {
			best = m.Score
		}
		s.items = append(s.items, scored{label: r[2] + " ~ " + r[3], pos: r[4] == "true", score: best, note: r[5] + " " + r[6], half: half(r[2] + "|" + r[3])})
	}
	return s, nil
}

func report(s set, threshold float64, verbose bool) {
	fmt.Printf("== %s (%d queries)\n", s.name, len(s.items))
	p, r, f, tp, fp, fn := prf(s.items, threshold-1e-9)
	fmt.Printf("   at threshold %.2f: precision %.3f  recall %.3f  F1 %.3f  (TP %d, FP %d, FN %d)\n", threshold, p, r, f, tp, fp, fn)
	fmt.Printf("   curve: ")
	for step := 0; step <= 9; step++ {
		t := 0.70 + 0.03*float64(step)
		p, r, _, _, _, _ := prf(s.items, t-1e-9)
		fmt.Printf("%.2f→P%.3f/R%.3f  ", t, p, r)
	}
	fmt.Println()
	if verbose {
		sort.Slice(s.items, func(i, j int) bool { return s.items[i].score > s.items[j].score })
		for _, it := range s.items {
			if it.pos && it.score < threshold {
				extra := ""
				if it.ambiguous != "" {
					extra = "; one name only: " + it.ambiguous
				}
				fmt.Printf("   MISS [%s] %.3f %s (%s%s)\n", it.half, it.score, it.label, it.note, extra)
			}
			if !it.pos && it.score >= threshold {
				fmt.Printf("   FALSE [%s] %.3f %s ~ %s\n", it.half, it.score, it.label, it.note)
			}
		}
	}
	fmt.Println()
}

func prf(items []scored, t float64) (p, r, f float64, tp, fp, fn int) {
	for _, it := range items {
		hit := it.score >= t
		switch {
		case it.pos && hit:
			tp++
		case it.pos:
			fn++
		case hit:
			fp++
		}
	}
	if tp+fp > 0 {
		p = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		r = float64(tp) / float64(tp+fn)
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return
}

func readCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	return cr.ReadAll()
}

func openAll(dir string, names ...string) ([]io.Reader, error) {
	var out []io.Reader
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func mustParse(path string, parse func(io.Reader) ([]screening.Entity, error)) []screening.Entity {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ents, err := parse(f)
	if err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	return ents
}
