package users

import (
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/alexedwards/argon2id"
	"github.com/trustelem/zxcvbn"

	"kycd/kyc"
)

// Password rules. NIST SP 800-63B: a minimum length, no composition rules,
// and a check against passwords known to be common or breached. The check
// is zxcvbn's: its embedded lists hold the 30,000 most common passwords of
// public breach corpora plus common names and words, and it also finds
// repeats, sequences (abcd, 4321), keyboard walks (qwerty), dates and
// l33t variants of all of these, and the user's own e-mail, name and
// organization. A password must score at least MinScore (about 10^8
// guesses: out of reach of an online attack and costly offline against
// argon2id).
const (
	MinPasswordLen = 12
	MaxPasswordLen = 256 // characters; argon2id hashes any length, this bounds the work
	MinScore       = 3
	// zxcvbnMaxLen bounds what zxcvbn looks at: its matching grows
	// quickly with length, and characters past this only add strength.
	zxcvbnMaxLen = 64
)

// CheckPassword returns what is wrong with a new password, or nil. inputs
// are words the password must not be built from (the user's e-mail, name,
// organization).
func CheckPassword(pw string, inputs ...string) []kyc.FieldError {
	bad := func(msg string) []kyc.FieldError { return []kyc.FieldError{{Field: "password", Message: msg}} }
	n := utf8.RuneCountInString(pw)
	switch {
	case !utf8.ValidString(pw):
		return bad("must be valid text")
	case n < MinPasswordLen:
		return bad("must be at least 12 characters; a few unrelated words make a good one")
	case n > MaxPasswordLen:
		return bad("must be at most 256 characters")
	}
	var words []string
	for _, in := range inputs {
		in = strings.ToLower(strings.TrimSpace(in))
		if in == "" {
			continue
		}
		words = append(words, in)
		for _, part := range strings.FieldsFunc(in, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
			if len(part) >= 3 {
				words = append(words, part)
			}
		}
		if strings.Contains(strings.ToLower(pw), in) && len(in) >= 4 {
			return bad("must not contain your e-mail address, your name or your organization's name")
		}
	}
	words = append(words, "kycd", "console", "password")
	check := pw
	if n > zxcvbnMaxLen {
		check = string([]rune(pw)[:zxcvbnMaxLen])
	}
	res := zxcvbn.PasswordStrength(check, words)
	if res.Score >= MinScore {
		return nil
	}
	why := map[string]bool{}
	for _, m := range res.Sequence {
		switch m.Pattern {
		case "dictionary":
			if m.DictionaryName == "user_inputs" {
				why["it is built from your name, e-mail or organization"] = true
			} else if m.DictionaryName == "passwords" {
				why["it is or contains a commonly used password"] = true
			} else {
				why["it is built from common words or names"] = true
			}
		case "repeat":
			why["it repeats characters or words"] = true
		case "sequence":
			why["it contains a sequence such as abcd or 1234"] = true
		case "spatial":
			why["it contains a keyboard pattern such as qwerty"] = true
		case "date":
			why["it contains a date"] = true
		}
	}
	msg := "is too easy to guess"
	var parts []string
	for _, w := range []string{"it is or contains a commonly used password", "it is built from your name, e-mail or organization",
		"it is built from common words or names", "it repeats characters or words", "it contains a sequence such as abcd or 1234",
		"it contains a keyboard pattern such as qwerty", "it contains a date"} {
		if why[w] {
			parts = append(parts, w)
		}
	}
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, "; ")
	}
	return bad(msg + ". Add more unrelated words or characters")
}

// HashParams are the argon2id parameters of new hashes: 64 MiB, two
// passes, two lanes, close to RFC 9106's second recommended option (which
// has three passes) while a sign-in stays near a quarter of a second on
// one busy core. The parameters are stored in each hash, so changing them
// later keeps old hashes working.
var HashParams = &argon2id.Params{Memory: 64 * 1024, Iterations: 2, Parallelism: 2, SaltLength: 16, KeyLength: 32}

// hashSlots bounds concurrent hashing: each takes 64 MiB, and a burst of
// sign-ins must not exhaust memory or starve the API of CPU.
func hashSlots() int { return max(1, runtime.GOMAXPROCS(0)/2) }
