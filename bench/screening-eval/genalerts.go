package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"kycd/screening"
)

// runGeneratedTuning screens only the generated customers' tuning half and
// lists each alert with how its name was aligned, for finding the rules
// behind them. The held-out half is never screened here: its alerts are
// not looked at while rules change (the full run reports its rate).
func runGeneratedTuning(dir, genFile string, threshold float64, workers int) error {
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
	all := []*screening.Index{screening.BuildIndex(un), screening.BuildIndex(ofac), screening.BuildIndex(pep)}
	gen, err := readGenerated(genFile, 0)
	if err != nil {
		return err
	}
	if gen == nil {
		return fmt.Errorf("%s absent (cd tools/namegen && npm ci && node generate.mjs)", genFile)
	}
	var tune []genCustomer
	for _, c := range gen {
		if genHalf(c.name, c.dob) == genTuning {
			tune = append(tune, c)
		}
	}
	rs := screenGenerated(tune, all, workers)
	noC, withC, exact := 0, 0, 0
	for _, r := range rs {
		if r.exact {
			exact++
			continue
		}
		a, b := r.noCountry >= threshold-1e-9, r.withCountry >= threshold-1e-9
		if a {
			noC++
		}
		if b {
			withC++
		}
		if !a && !b {
			continue
		}
		f := r.best.Features
		var toks []string
		for _, t := range f.Tokens {
			w := ""
			if t.Weak {
				w = " weak"
			}
			toks = append(toks, fmt.Sprintf("%s=%s %.2f%s", t.Query, t.Listed, t.Similarity, w))
		}
		fmt.Printf("ALERT %.3f/%.3f %s [%s, %s, %s] ~ %s (dob %s) name %.3f q %.3f n %.3f dob %s ×%.2f weak %v common %v: %s\n",
			r.noCountry, r.withCountry, r.customer.name, r.customer.locale, r.customer.dob, r.customer.country,
			r.noteMatch, strings.Join(r.best.Entity.DOBs, ","),
			f.NameScore, f.QueryCoverage, f.NameCoverage, f.DOB, f.DOBFactor, f.WeakEvidence, f.CommonNamesOnly, strings.Join(toks, "; "))
	}
	fmt.Printf("generated tuning half: %d customers, alerts %d (%.3f%%) without country, %d (%.3f%%) with it, %d exact true matches; %s\n",
		len(tune), noC, 100*float64(noC)/float64(len(tune)), withC, 100*float64(withC)/float64(len(tune)), exact, time.Since(t0).Round(time.Millisecond))
	return nil
}
