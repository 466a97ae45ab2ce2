package main

import (
	"fmt"
	"path/filepath"
	"sort"
)

// runPairs is -pairs: the labelled name pairs alone (no lists to parse),
// F1 per half at threshold t, and the TUNING half's errors only, so rules
// are derived without reading a held-out pair.
func runPairs(dir string, t float64) error {
	for _, orgs := range []bool{false, true} {
		s, err := namePairs(filepath.Join(dir, "eval/name_pairs_dev.csv"), orgs)
		if err != nil {
			return err
		}
		fmt.Printf("== %s\n", s.name)
		for _, c := range []string{tuning, heldOut} {
			fmt.Printf("   %-9s F1 %s\n", c, f1Figure(s.items, t)[c])
		}
		sort.Slice(s.items, func(i, j int) bool { return s.items[i].score > s.items[j].score })
		for _, it := range s.items {
			if it.half != tuning {
				continue
			}
			switch {
			case it.pos && it.score < t-1e-9:
				fmt.Printf("   MISS  %.3f %s (%s)\n", it.score, it.label, it.note)
			case !it.pos && it.score >= t-1e-9:
				fmt.Printf("   FALSE %.3f %s (%s)\n", it.score, it.label, it.note)
			}
		}
		fmt.Println()
	}
	return nil
}
