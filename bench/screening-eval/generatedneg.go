package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"kycd/screening"
)

// The generated negatives: synthetic customers across scripts and
// cultures written by tools/namegen (from the locale name lists of
// @faker-js/faker 10.6.0, seeded) into a cache folder, never committed.

// generatedPath is where tools/namegen writes by default.
func generatedPath() string {
	if p := os.Getenv("KYCD_GENERATED_CUSTOMERS"); p != "" {
		return p
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "kycd", "generated_customers_v2.csv")
}

// options are run's settings for the generated customers and the
// before baseline.
type options struct {
	genFile             string
	genLimit, workers   int
	writeBefore, commit string
}

type genCustomer struct {
	name, dob, country, locale string
}

// readGenerated reads the generated customers; (nil, nil) when the file
// is absent and not under CI (the caller says the set was not run).
func readGenerated(path string, limit int) ([]genCustomer, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) && os.Getenv("CI") != "true" {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("generated customers (run: cd tools/namegen && npm ci && node generate.mjs): %w", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []genCustomer
	for i, r := range rows {
		if i == 0 {
			continue
		}
		if len(r) < 4 {
			return nil, fmt.Errorf("%s line %d: %d columns, want 4", path, i+1, len(r))
		}
		out = append(out, genCustomer{r[0], r[1], r[2], r[3]})
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// genResult is one generated customer screened without and with country.
type genResult struct {
	noCountry, withCountry float64
	// exact: the best match without country has the customer's full name
	// exactly (every part equal, each side fully covered) and the listed
	// date of birth: a true match, not a false alert.
	exact      bool
	note       string
	noteMatch  string
	noteCtry   string
	customer   genCustomer
	exactMatch string
	// best is the best match without country (for -generated-tuning).
	best screening.Match
}

// screenGenerated screens every generated customer against all lists, by
// name and DOB, then by name, DOB and country, on a few goroutines.
func screenGenerated(cs []genCustomer, all []*screening.Index, workers int) []genResult {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]genResult, len(cs))
	var wg sync.WaitGroup
	next := make(chan int, 256)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := cs[i]
				r := genResult{customer: c}
				var best screening.Match
				for _, ix := range all {
					for _, m := range ix.Search(screening.Query{Name: c.name, DOB: c.dob}, 0.5, 1) {
						if m.Score > r.noCountry {
							r.noCountry, best = m.Score, m
						}
					}
					for _, m := range ix.Search(screening.Query{Name: c.name, DOB: c.dob, Country: c.country}, 0.5, 1) {
						if m.Score > r.withCountry {
							r.withCountry, r.noteCtry = m.Score, m.MatchedName.Full
						}
					}
				}
				if best.Entity != nil {
					r.best = best
					r.noteMatch = best.MatchedName.Full
					r.exact = exactNameAndDOB(best)
				}
				out[i] = r
			}
		}()
	}
	for i := range cs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// exactNameAndDOB: every part of both names paired at similarity 1 by a
// spelled (not weak) alignment, and the dates of birth equal.
func exactNameAndDOB(m screening.Match) bool {
	f := m.Features
	if f.DOB != "exact" || f.QueryCoverage < 1 || f.NameCoverage < 1 || len(f.Tokens) == 0 {
		return false
	}
	for _, t := range f.Tokens {
		if t.Similarity < 1 || t.Weak {
			return false
		}
	}
	return true
}

// reportGenerated prints the generated customers' alerts by locale and,
// with -v, each alert.
func reportGenerated(rs []genResult, t float64, verbose bool) {
	type count struct{ n, noC, withC, exact int }
	by := map[string]*count{}
	var locs []string
	for _, r := range rs {
		c := by[r.customer.locale]
		if c == nil {
			c = &count{}
			by[r.customer.locale] = c
			locs = append(locs, r.customer.locale)
		}
		c.n++
		switch {
		case r.exact:
			c.exact++
		default:
			if r.noCountry >= t-1e-9 {
				c.noC++
			}
			if r.withCountry >= t-1e-9 {
				c.withC++
			}
		}
	}
	fmt.Printf("   alerts by locale (no country / with country / exact name+DOB true matches):")
	for _, l := range locs {
		c := by[l]
		fmt.Printf(" %s %d/%d/%d of %d;", l, c.noC, c.withC, c.exact, c.n)
	}
	fmt.Println()
	if verbose {
		for _, r := range rs {
			if genHalf(r.customer.name, r.customer.dob) != genTuning {
				continue // only the tuning half is looked at one by one
			}
			if r.exact {
				fmt.Printf("   TRUE MATCH %s %s ~ %s\n", r.customer.name, r.customer.dob, r.noteMatch)
			} else if r.noCountry >= t-1e-9 || r.withCountry >= t-1e-9 {
				fmt.Printf("   FALSE %.3f/%.3f %s (%s, %s) ~ %s\n", r.noCountry, r.withCountry, r.customer.name, r.customer.locale, r.customer.dob, r.noteMatch)
			}
		}
	}
	fmt.Println()
}
