package screening

// The date-of-birth and country factors of a match score.

import "strings"

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
