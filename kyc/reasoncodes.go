package kyc

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// ReasonCode is one code a reviewer's decision can carry, with its words.
type ReasonCode struct {
	Code      string
	Label     string
	BuiltIn   bool       // kycd's own: cannot be removed
	CreatedAt *time.Time // an organization's code: when it was added
}

// BuiltInReasonCodes are the decision reason codes every organization
// has; an organization adds its own (store.CreateReasonCode).
var BuiltInReasonCodes = []ReasonCode{
	{Code: "VERIFIED_MANUALLY", Label: "Verified manually", BuiltIn: true},
	{Code: "SCREENING_FALSE_POSITIVE", Label: "Screening match is another person", BuiltIn: true},
	{Code: "DOCUMENT_FORGED", Label: "Document forged", BuiltIn: true},
	{Code: "DOCUMENT_EXPIRED", Label: "Document expired", BuiltIn: true},
	{Code: "DOCUMENT_UNREADABLE", Label: "Document unreadable", BuiltIn: true},
	{Code: "FACE_MISMATCH", Label: "Selfie does not match the document", BuiltIn: true},
	{Code: "DATA_MISMATCH", Label: "Data differs from the document", BuiltIn: true},
	{Code: "SANCTIONS_MATCH", Label: "Sanctions match", BuiltIn: true},
	{Code: "PEP_RISK", Label: "Politically exposed person: risk not accepted", BuiltIn: true},
	{Code: "DUPLICATE_IDENTITY", Label: "Identity used before", BuiltIn: true},
	{Code: "UNDER_AGE", Label: "Under age", BuiltIn: true},
	{Code: "OTHER", Label: "Other (the note says)", BuiltIn: true},
}

// BuiltInReasonCode reports whether code is one of kycd's own.
func BuiltInReasonCode(code string) bool {
	for _, c := range BuiltInReasonCodes {
		if c.Code == code {
			return true
		}
	}
	return false
}

// MaxReasonCodes bounds the reason codes of one decision.
const MaxReasonCodes = 10

// MaxReasonLabelLen bounds a reason code's label, in characters.
const MaxReasonLabelLen = 120

var reasonCodePattern = regexp.MustCompile(`^[A-Z0-9_]{1,64}$`)

// ValidReasonCodeShape reports whether code has a reason code's shape:
// 1 to 64 of A-Z, 0-9 and _.
func ValidReasonCodeShape(code string) bool { return reasonCodePattern.MatchString(code) }

// CheckReasonCode validates a new organization code and its label.
func CheckReasonCode(code, label string) (string, error) {
	var errs []FieldError
	if !ValidReasonCodeShape(code) {
		errs = append(errs, FieldError{Field: "code", Message: "must be 1 to 64 of A-Z, 0-9 and _, e.g. SOURCE_OF_FUNDS_UNCLEAR"})
	} else if BuiltInReasonCode(code) {
		errs = append(errs, FieldError{Field: "code", Message: "is a built-in code already"})
	}
	l := strings.TrimSpace(label)
	switch {
	case l == "":
		errs = append(errs, FieldError{Field: "label", Message: "is required: say the code in words"})
	case utf8.RuneCountInString(l) > MaxReasonLabelLen:
		errs = append(errs, FieldError{Field: "label", Message: "must be at most 120 characters"})
	default:
		if r, bad := InvisibleRune(l); bad {
			errs = append(errs, FieldError{Field: "label", Message: fmt.Sprintf("must not contain invisible or text-direction characters (found U+%04X)", r)})
		}
	}
	if len(errs) > 0 {
		return "", Invalid(errs...)
	}
	return l, nil
}
