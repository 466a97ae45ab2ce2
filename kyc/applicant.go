package kyc

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ApplicantStatus is the lifecycle state of an applicant.
type ApplicantStatus string

// Applicant states: active on creation, archived by POST .../archive.
const (
	ApplicantActive   ApplicantStatus = "active"
	ApplicantArchived ApplicantStatus = "archived"
)

// Applicant is a person to be verified (spec §2.1).
type Applicant struct {
	ID             string
	PublicID       string
	OrganizationID string
	Environment    Environment
	FirstName      string
	LastName       string
	Email          *string
	Phone          *string
	DOB            *string // YYYY-MM-DD
	Country        *string
	ExternalRef    *string
	Metadata       map[string]any
	Status         ApplicantStatus
	CreatedAt      time.Time
	UpdatedAt      time.Time
	ArchivedAt     *time.Time
	// The personal data lifecycle (docs/personal-data.md): a legal hold
	// suspends every erasure; an erasure asked for while retention still
	// required the data runs at ErasureScheduledAt; ErasedAt is set once
	// the personal fields were erased (the row stays as a tombstone).
	LegalHoldReason    *string
	LegalHoldAt        *time.Time
	ErasureScheduledAt *time.Time
	ErasedAt           *time.Time
	// RelationshipEnd (YYYY-MM-DD) is when the integrator's business
	// relationship with the person ended: decided data is kept from the
	// later of it and the last decision (ErasableFrom).
	RelationshipEnd *string
}

// ApplicantInput carries the writable fields of an applicant. A nil pointer
// means "not given" (on create) or "no change" (on update); a pointer to ""
// on an optional field clears it.
type ApplicantInput struct {
	FirstName   *string
	LastName    *string
	Email       *string
	Phone       *string
	DOB         *string
	Country     *string
	ExternalRef *string
	Metadata    map[string]any // nil: not given; empty map: clear
	// RelationshipEnd: YYYY-MM-DD, "" clears (relationshipEndDate).
	RelationshipEnd *string
}

// Fields names the API fields the input sets, in the API's order.
func (in *ApplicantInput) Fields() []string {
	var out []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"firstName", in.FirstName != nil}, {"lastName", in.LastName != nil}, {"email", in.Email != nil}, {"phone", in.Phone != nil},
		{"dob", in.DOB != nil}, {"country", in.Country != nil}, {"externalRef", in.ExternalRef != nil}, {"metadata", in.Metadata != nil},
		{"relationshipEndDate", in.RelationshipEnd != nil}} {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}

// Limits of the applicant record. They are documented in the OpenAPI
// description and docs/api.md; change them there too.
const (
	MaxNameLen        = 100
	MaxEmailLen       = 254 // RFC 5321 path limit
	MaxExternalRefLen = 255
	MaxMetadataKeys   = 50
	MaxMetadataKeyLen = 40
	MaxMetadataValLen = 500
)

var (
	e164Pattern  = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)
	datePattern  = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	earliestDOB  = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	metaKeyChars = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)
)

// Validate checks in against the applicant rules and returns every problem
// at once. With create set, firstName and lastName are required; on update a
// nil field is left alone but "" is refused for required fields. prefix is
// put before each field name (e.g. "applicant." for an inline applicant).
func (in *ApplicantInput) Validate(create bool, now time.Time, prefix string) []FieldError {
	var errs []FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, FieldError{Field: prefix + field, Message: fmt.Sprintf(format, args...)})
	}
	name := func(field string, v *string) {
		switch {
		case v == nil:
			if create {
				add(field, "is required")
			}
		default:
			if msg := NameProblem(*v); msg != "" {
				add(field, "%s", msg)
			}
		}
	}
	name("firstName", in.FirstName)
	name("lastName", in.LastName)

	if v := in.Email; v != nil && *v != "" {
		if len(*v) > MaxEmailLen || !validEmail(*v) {
			add("email", "must be an e-mail address such as ada@example.com")
		}
	}
	if v := in.Phone; v != nil && *v != "" && !e164Pattern.MatchString(*v) {
		add("phone", "must be in E.164 international format, e.g. +447700900123")
	}
	if v := in.DOB; v != nil && *v != "" {
		if msg := checkDOB(*v, now); msg != "" {
			add("dob", "%s", msg)
		}
	}
	if v := in.Country; v != nil && *v != "" && !ValidCountry(*v) {
		add("country", "must be an ISO 3166-1 alpha-2 country code in upper case, e.g. GB")
	}
	if v := in.ExternalRef; v != nil && *v != "" {
		if utf8.RuneCountInString(*v) > MaxExternalRefLen {
			add("externalRef", "must be at most %d characters", MaxExternalRefLen)
		} else if !printable(*v) {
			add("externalRef", "must not contain control characters")
		}
	}
	if v := in.RelationshipEnd; v != nil && *v != "" {
		if msg := checkRelationshipEnd(*v); msg != "" {
			add("relationshipEndDate", "%s", msg)
		}
	}
	for _, fe := range ValidateMetadata(in.Metadata) {
		fe.Field = prefix + fe.Field
		errs = append(errs, fe)
	}
	return errs
}

// ParseDate parses a YYYY-MM-DD date, refusing impossible dates such as
// 2023-02-30 (time.Parse does that for us; the pattern refuses 2023-2-3).
func ParseDate(s string) (time.Time, bool) {
	if !datePattern.MatchString(s) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

func checkDOB(s string, now time.Time) string {
	t, ok := ParseDate(s)
	switch {
	case !ok:
		return "must be a real date in the form YYYY-MM-DD"
	case !t.Before(now):
		return "must be in the past"
	case t.Before(earliestDOB):
		return "must not be before 1900-01-01"
	}
	return ""
}

// Bounds of a relationship end date. It may lie in the future (a contract
// that ends on a known date); the bounds only refuse typing slips.
var (
	earliestRelationshipEnd = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	latestRelationshipEnd   = time.Date(2199, 12, 31, 0, 0, 0, 0, time.UTC)
)

func checkRelationshipEnd(s string) string {
	t, ok := ParseDate(s)
	switch {
	case !ok:
		return "must be a real date in the form YYYY-MM-DD"
	case t.Before(earliestRelationshipEnd) || t.After(latestRelationshipEnd):
		return "must be from 1900-01-01 to 2199-12-31"
	}
	return ""
}

// validEmail accepts a bare addr-spec (no display name, no angle brackets)
// whose domain has at least one dot.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".") && !strings.HasSuffix(s, ".")
}

func printable(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// ValidateMetadata checks that m is flat: at most MaxMetadataKeys keys of at
// most MaxMetadataKeyLen characters from [A-Za-z0-9_.:-], each value a string
// (at most MaxMetadataValLen characters), a number, a boolean or null.
func ValidateMetadata(m map[string]any) []FieldError {
	var errs []FieldError
	if len(m) > MaxMetadataKeys {
		errs = append(errs, FieldError{Field: "metadata", Message: fmt.Sprintf("must have at most %d keys", MaxMetadataKeys)})
	}
	for k, v := range m {
		field := "metadata." + k
		if len(k) > MaxMetadataKeyLen || !metaKeyChars.MatchString(k) {
			errs = append(errs, FieldError{Field: field, Message: fmt.Sprintf("key must be 1 to %d characters of A-Z a-z 0-9 _ . : -", MaxMetadataKeyLen)})
			continue
		}
		switch v := v.(type) {
		case nil, bool, json.Number, float64:
		case string:
			if utf8.RuneCountInString(v) > MaxMetadataValLen {
				errs = append(errs, FieldError{Field: field, Message: fmt.Sprintf("must be at most %d characters", MaxMetadataValLen)})
			}
		default:
			errs = append(errs, FieldError{Field: field, Message: "must be a string, number, boolean or null (metadata is flat)"})
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Field < errs[j].Field })
	return errs
}

// ApplicantFilter selects applicants for a list.
type ApplicantFilter struct {
	IncludeArchived bool
	Page, Size      int
}
