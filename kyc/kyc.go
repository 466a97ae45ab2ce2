// Package kyc holds the domain of the identity-verification service: its
// nouns, value types, validation rules and error codes. It imports only the
// standard library so that every adapter (store, server, jobs) can depend on
// it without depending on each other.
package kyc

import (
	"regexp"
	"time"
)

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

// ulidPattern matches a canonical ULID: 26 Crockford base32 characters whose
// first character keeps the value within 128 bits.
var ulidPattern = regexp.MustCompile(`^[0-7][0-9A-HJKMNP-TV-Z]{25}$`)

// publicCodePattern matches the short public code of a resource.
var publicCodePattern = regexp.MustCompile(`^[0-9a-hjkmnp-tv-z]{12}$`)

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
	if ulidPattern.MatchString(rest) {
		return IDInternal, s
	}
	if len(rest) == PublicCodeLen {
		lower := []byte(rest)
		for i, c := range lower {
			if c >= 'A' && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		if publicCodePattern.Match(lower) {
			return IDPublic, prefix + string(lower)
		}
	}
	return IDInvalid, ""
}

// ValidULID reports whether s is a canonical upper-case ULID.
func ValidULID(s string) bool { return ulidPattern.MatchString(s) }
