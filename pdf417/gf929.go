package pdf417

import "errors"

// PDF417 error correction is Reed–Solomon over the prime field GF(929)
// with generator 3 (ISO/IEC 15438 §5.9 and Annex F): the k correction
// codewords make the symbol's polynomial vanish at 3^1 … 3^k. A prime
// field needs no log tables for correctness, but log/exp tables make the
// Chien search and Forney's formula cheap.
const mod = 929

var gfExp, gfLog = func() (exp [2 * mod]int, log [mod]int) {
	x := 1
	for i := range mod - 1 {
		exp[i] = x
		exp[i+mod-1] = x
		log[x] = i
		x = x * 3 % mod
	}
	return exp, log
}()

func gfMul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	return gfExp[gfLog[a]+gfLog[b]]
}

func gfInv(a int) int { return gfExp[mod-1-gfLog[a]] }

func gfAdd(a, b int) int { return (a + b) % mod }

func gfSub(a, b int) int { return (a - b + mod) % mod }

// polyEval evaluates p (lowest degree first) at x.
func polyEval(p []int, x int) int {
	v := 0
	for i := len(p) - 1; i >= 0; i-- {
		v = gfAdd(gfMul(v, x), p[i])
	}
	return v
}

// ErrTooManyErrors is returned when the damage exceeds what the symbol's
// correction codewords can repair: 2·errors + erasures must not exceed
// the number of correction codewords less a reserve, and the correction
// must leave every syndrome zero.
var ErrTooManyErrors = errors.New("pdf417: too many codeword errors to correct")

// correct repairs cw in place, whose last ecCount codewords are the
// Reed–Solomon check codewords. erasures lists the indexes of codewords
// known to be unreadable. It returns the number of codewords changed.
// Errors and erasures are found together by Berlekamp–Massey started from
// the erasure locator, then valued by Forney's formula.
func correct(cw []int, ecCount int, erasures []int) (int, error) {
	n := len(cw)
	if ecCount < 2 || ecCount >= n || len(erasures) > ecCount {
		return 0, ErrTooManyErrors
	}
	// S_i = C(3^i), i = 1..k, with codeword j the coefficient of x^(n-1-j).
	synd := make([]int, ecCount+1) // synd[i] for i in 1..k
	clean := true
	for i := 1; i <= ecCount; i++ {
		x, v := gfExp[i], 0
		for _, c := range cw {
			v = gfAdd(gfMul(v, x), c%mod)
		}
		synd[i] = v
		clean = clean && v == 0
	}
	if clean {
		return 0, nil
	}
	locator := func(j int) int { return gfExp[(n-1-j)%(mod-1)] } // X_j = 3^(n-1-j)

	// Erasure locator Γ(x) = Π (1 − X_e·x).
	lambda := []int{1}
	for _, e := range erasures {
		if e < 0 || e >= n {
			return 0, ErrTooManyErrors
		}
		lambda = polyMulLinear(lambda, locator(e))
	}
	b := append([]int(nil), lambda...)
	e := len(erasures)
	l := e
	for r := e + 1; r <= ecCount; r++ {
		delta := 0
		for i := 0; i < len(lambda) && i < r; i++ {
			delta = gfAdd(delta, gfMul(lambda[i], synd[r-i]))
		}
		xb := append([]int{0}, b...) // x·B(x)
		if delta == 0 {
			b = xb
			continue
		}
		t := polySub(lambda, polyScale(xb, delta))
		if 2*l <= r+e-1 {
			l = r + e - l
			b = polyScale(lambda, gfInv(delta))
		} else {
			b = xb
		}
		lambda = t
	}
	for len(lambda) > 1 && lambda[len(lambda)-1] == 0 {
		lambda = lambda[:len(lambda)-1]
	}
	deg := len(lambda) - 1
	if 2*(deg-e)+e > ecCount-reserve(ecCount) || deg == 0 {
		return 0, ErrTooManyErrors
	}
	// Chien search over the symbol's positions only: a root outside them
	// means the damage was misjudged.
	var pos []int
	for j := range n {
		if polyEval(lambda, gfInv(locator(j))) == 0 {
			pos = append(pos, j)
		}
	}
	if len(pos) != deg {
		return 0, ErrTooManyErrors
	}
	// Ω(x) = Λ(x)·S(x) mod x^k, S(x) = Σ S_i x^(i-1).
	omega := make([]int, ecCount)
	for i, li := range lambda {
		for j := 1; j <= ecCount && i+j-1 < ecCount; j++ {
			omega[i+j-1] = gfAdd(omega[i+j-1], gfMul(li, synd[j]))
		}
	}
	dl := make([]int, max(deg, 1)) // Λ'(x)
	for i := 1; i <= deg; i++ {
		dl[i-1] = gfMul(lambda[i]%mod, i%mod)
	}
	out := append([]int(nil), cw...)
	for _, j := range pos {
		xinv := gfInv(locator(j))
		den := polyEval(dl, xinv)
		if den == 0 {
			return 0, ErrTooManyErrors
		}
		y := gfMul(polyEval(omega, xinv), gfInv(den))
		out[j] = gfAdd(out[j]%mod, y)
	}
	// The repaired symbol must be a codeword: otherwise the damage was
	// beyond the code and the "correction" would be a guess.
	for i := 1; i <= ecCount; i++ {
		if polyEval(reversed(out), gfExp[i]) != 0 {
			return 0, ErrTooManyErrors
		}
	}
	changed := 0
	for i := range cw {
		if cw[i] != out[i] {
			changed++
		}
	}
	copy(cw, out)
	return changed, nil
}

// reserve is how many correction codewords are kept for detection only:
// a decoder that spends all of them on correction turns a symbol damaged
// beyond repair into a plausible wrong one about once in a few hundred
// (a miscorrection); keeping one or two makes that a rare event, at the
// price of one or two unreadable codewords fewer.
func reserve(ecCount int) int {
	switch {
	case ecCount >= 16:
		return 2
	case ecCount >= 4:
		return 1
	}
	return 0
}

func reversed(p []int) []int {
	r := make([]int, len(p))
	for i, v := range p {
		r[len(p)-1-i] = v
	}
	return r
}

// polyMulLinear returns p(x)·(1 − a·x).
func polyMulLinear(p []int, a int) []int {
	r := make([]int, len(p)+1)
	for i, c := range p {
		r[i] = gfAdd(r[i], c)
		r[i+1] = gfSub(r[i+1], gfMul(c, a))
	}
	return r
}

func polyScale(p []int, s int) []int {
	r := make([]int, len(p))
	for i, c := range p {
		r[i] = gfMul(c, s)
	}
	return r
}

func polySub(a, b []int) []int {
	r := make([]int, max(len(a), len(b)))
	for i := range r {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		r[i] = gfSub(x, y)
	}
	return r
}
