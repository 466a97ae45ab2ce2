package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
)

// The one table of the "Screening, part 3" issue: each goal figure on the
// tuning half, the held-out half and the generated customers, before the
// issue's rules (recorded once in before.json with -write-before, from the
// commit named there) and now.

//go:embed before.json
var beforeJSON []byte

type baseline struct {
	Commit  string                       `json:"commit"`
	Note    string                       `json:"note"`
	Figures map[string]map[string]string `json:"figures"` // figure key → column → value
}

type figure struct {
	key, label, goal string
	vals             map[string]string
}

var columns = []string{tuning, heldOut, genTuning, genHeldOut}

// alertFigure: the share of customers whose best score reaches the
// threshold.
func alertFigure(items []scored, t float64, col func(scored) string, skip func(scored) bool) map[string]string {
	n, hit := map[string]int{}, map[string]int{}
	for _, it := range items {
		if skip != nil && skip(it) {
			continue
		}
		c := col(it)
		n[c]++
		if it.score >= t-1e-9 {
			hit[c]++
		}
	}
	out := map[string]string{}
	for c, k := range n {
		out[c] = fmt.Sprintf("%.3f%% (%d/%d)", 100*float64(hit[c])/float64(k), hit[c], k)
	}
	return out
}

func recallFigure(items []scored, t float64) map[string]string {
	n, hit := map[string]int{}, map[string]int{}
	for _, it := range items {
		n[it.half]++
		if it.score >= t-1e-9 {
			hit[it.half]++
		}
	}
	out := map[string]string{}
	for c, k := range n {
		out[c] = fmt.Sprintf("%.4f (%d/%d)", float64(hit[c])/float64(k), hit[c], k)
	}
	return out
}

func f1Figure(items []scored, t float64) map[string]string {
	by := map[string][]scored{}
	for _, it := range items {
		by[it.half] = append(by[it.half], it)
	}
	out := map[string]string{}
	for c, its := range by {
		_, _, f, tp, fp, fn := prf(its, t-1e-9)
		out[c] = fmt.Sprintf("%.3f (TP %d FP %d FN %d)", f, tp, fp, fn)
	}
	return out
}

func byHalf(it scored) string { return it.half }

// goalTable builds the figures at threshold t.
func goalTable(t float64, negNoCountry, negCountry, positives, pertUN, pertOFAC, exactUN, arabic, pairsPerson, pairsOrg set, gen []genResult) []figure {
	figs := []figure{
		{key: "alerts_no_country", label: "alerts, name + DOB, no country", goal: "≤ 0.1%", vals: alertFigure(negNoCountry.items, t, byHalf, nil)},
		{key: "alerts_country", label: "alerts, name + DOB + country", goal: "≤ 0.02%", vals: alertFigure(negCountry.items, t, byHalf, nil)},
		{key: "perturbed_un", label: "typo'd UN people → right entity", goal: "≥ 0.995", vals: recallFigure(pertUN.items, t)},
		{key: "perturbed_ofac", label: "typo'd OFAC people → right entity", goal: "(kept)", vals: recallFigure(pertOFAC.items, t)},
		{key: "exact_un", label: "exact UN full names → right entity", goal: "1.000", vals: recallFigure(exactUN.items, t)},
		{key: "positives_un", label: "UN people as customers → found in UN", goal: "(kept)", vals: recallFigure(positives.items, t)},
		{key: "arabic_latin", label: "Arabic script → Latin-only record", goal: "≥ 0.90", vals: recallFigure(arabic.items, t)},
		{key: "pairs_person", label: "name-pair F1, persons", goal: "> 0.85", vals: f1Figure(pairsPerson.items, t)},
		{key: "pairs_org", label: "name-pair F1, organisations", goal: "> 0.85", vals: f1Figure(pairsOrg.items, t)},
	}
	if gen != nil {
		var noC, withC []scored
		exact, n := map[string]int{}, map[string]int{}
		for _, r := range gen {
			h := genHalf(r.customer.name, r.customer.dob)
			n[h]++
			if r.exact {
				exact[h]++
				continue
			}
			noC = append(noC, scored{score: r.noCountry, half: h})
			withC = append(withC, scored{score: r.withCountry, half: h})
		}
		tm := figure{key: "generated_true_matches", label: "generated: exact name + DOB of a listed person (true matches, not counted as alerts)", goal: "(counted)", vals: map[string]string{}}
		for _, h := range []string{genTuning, genHeldOut} {
			figs[0].vals[h] = alertFigure(noC, t, byHalf, nil)[h]
			figs[1].vals[h] = alertFigure(withC, t, byHalf, nil)[h]
			tm.vals[h] = fmt.Sprintf("%d of %d", exact[h], n[h])
		}
		figs = append(figs, tm)
	}
	return figs
}

func printTable(t float64, figs []figure) {
	var base baseline
	if err := json.Unmarshal(beforeJSON, &base); err != nil {
		fmt.Fprintf(os.Stderr, "before.json: %v\n", err)
	}
	fmt.Printf("== issue 25 goals at threshold %.2f: before (%s) → now, by half (split by a fixed hash, see split.go)\n", t, base.Commit)
	if base.Note != "" {
		fmt.Printf("   %s\n", base.Note)
	}
	for _, f := range figs {
		fmt.Printf("   %s (goal %s)\n", f.label, f.goal)
		for _, c := range columns {
			now, ok := f.vals[c]
			if !ok {
				continue
			}
			before := base.Figures[f.key][c]
			if before == "" {
				before = "—"
			}
			fmt.Printf("      %-12s %-32s → %s\n", c, before, now)
		}
	}
	fmt.Println()
}

func writeBefore(path, commit string, figs []figure) error {
	b := baseline{Commit: commit, Figures: map[string]map[string]string{},
		Note: "before: the matcher of issue 14 (main before issue 25), same sets, same split, same threshold"}
	for _, f := range figs {
		b.Figures[f.key] = f.vals
	}
	out, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}
