package main

import (
	"hash/fnv"
	"strings"
)

// The held-out split of the "Screening, part 3" issue: every labelled
// item falls in the tuning half or the held-out half by a fixed hash of a
// key that does not change with the matcher (a customer's name and date of
// birth, a listed person's entity ID, a pair's two names). Rules are tuned
// on the tuning half only; the held-out half says whether they hold.

const (
	tuning  = "tuning"
	heldOut = "held-out"
	// The generated customers are split the same way, by name and date
	// of birth, into their own two halves.
	genTuning  = "gen-tuning"
	genHeldOut = "gen-held-out"
)

// genHalf is the generated customers' half.
func genHalf(name, dob string) string {
	if half(name+"|"+dob) == tuning {
		return genTuning
	}
	return genHeldOut
}

// splitSalt is part of the hash so the split is not any other hash of the
// same keys; it is fixed, never tuned.
const splitSalt = "kycd-screening-part3-split"

func half(key string) string {
	h := fnv.New64a()
	h.Write([]byte(splitSalt))
	h.Write([]byte(strings.TrimSpace(key)))
	if h.Sum64()%2 == 0 {
		return tuning
	}
	return heldOut
}
