// Package kyc holds the domain of the identity-verification service: its
// nouns, value types, validation rules and error codes. It imports only the
// standard library so that every adapter (store, server, jobs) can depend on
// it without depending on each other.
package kyc

import "time"

// Environment isolates data: a key of one environment never sees the other's.
type Environment string

// The two environments of spec §1.5.
const (
	Sandbox Environment = "sandbox"
	Live    Environment = "live"
)

// Valid reports whether e is one of the two environments.
func (e Environment) Valid() bool { return e == Sandbox || e == Live }

// TimeFormat is how every timestamp is written, in the API and in the
// database: UTC with millisecond precision, so that string order is time order.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// crockfordUpper marks the characters of Crockford's base32 alphabet in
// upper case (no I, L, O, U). Ids are checked on every request, so this is
// a table lookup rather than a regular expression.
var crockfordUpper = func() (t [256]bool) {
	for _, c := range "0123456789ABCDEFGHJKMNPQRSTVWXYZ" {
		t[c] = true
	}
	return t
}()

// isULID reports whether s is a canonical ULID: 26 upper-case Crockford
// base32 characters whose first keeps the value within 128 bits.
func isULID(s string) bool {
	if len(s) != 26 || s[0] < '0' || s[0] > '7' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !crockfordUpper[s[i]] {
			return false
		}
	}
	return true
}

// PublicCodeLen is the length of the short code of a public id: 12 Crockford
// base32 characters carry 60 random bits, too many to enumerate.
const PublicCodeLen = 12

// IDKind tells which of the two id forms a path parameter used.
type IDKind int

// The two id forms of spec §1.6.
const (
	IDInvalid IDKind = iota
	IDInternal
	IDPublic
)

// ClassifyID tells whether s is prefix+ULID, prefix+public code or neither.
// Public codes are matched case-insensitively; the returned string is the
// canonical form to look up.
func ClassifyID(prefix, s string) (IDKind, string) {
	if len(s) <= len(prefix) || s[:len(prefix)] != prefix {
		return IDInvalid, ""
	}
	rest := s[len(prefix):]
	if isULID(rest) {
		return IDInternal, s
	}
	if len(rest) != PublicCodeLen {
		return IDInvalid, ""
	}
	// Public codes are lower case; accept them typed in upper case too.
	lower := []byte(rest)
	for i, c := range lower {
		if c >= 'A' && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		} else if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if !crockfordUpper[c] {
			return IDInvalid, ""
		}
	}
	return IDPublic, prefix + string(lower)
}

// ValidULID reports whether s is a canonical upper-case ULID.
func ValidULID(s string) bool { return isULID(s) }
