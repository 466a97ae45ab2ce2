package kyc

import (
	"errors"
	"fmt"
)

// Application error codes. They are stable API: clients switch on them. They
// are the API document's §7.2 table as published (including the lower-case
// wrong_environment), plus METHOD_NOT_ALLOWED for a known path called with
// the wrong method.
const (
	EValidation        = "VALIDATION_ERROR"    // 400 (413 when the body is too large)
	EInvalidTransition = "INVALID_TRANSITION"  // 400 action not allowed from the current status
	EMissingAPIKey     = "MISSING_API_KEY"     // 401
	EInvalidAPIKey     = "INVALID_API_KEY"     // 401 malformed, unknown or revoked (Reason says which)
	EForbidden         = "FORBIDDEN"           // 403
	EWrongEnvironment  = "wrong_environment"   // 403 as published in §5.7 and §7.2
	ENotFound          = "NOT_FOUND"           // 404
	EMethodNotAllowed  = "METHOD_NOT_ALLOWED"  // 405
	EConflict          = "CONFLICT"            // 409 duplicate externalRef, idempotency key in flight
	EUnprocessable     = "UNPROCESSABLE"       // 422 business rule, e.g. archived applicant
	ERateLimited       = "RATE_LIMITED"        // 429
	EInternal          = "INTERNAL_ERROR"      // 500 never constructed by callers: the default
	EUnavailable       = "SERVICE_UNAVAILABLE" // 503
)

// Fine-grained authentication reasons of spec §5.7, carried in error.reason
// beside the general code of §7.2.
const (
	ReasonMissingAPIKey    = "missing_api_key"
	ReasonInvalidAPIKey    = "invalid_api_key"
	ReasonRevokedAPIKey    = "revoked_api_key"
	ReasonWrongEnvironment = "wrong_environment"
	ReasonRateLimited      = "rate_limited"
)

// FieldError names one invalid field of a request and what is wrong with it.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is an application error. Code, Message, Reason and Details are safe
// to show to API clients; Err is the underlying cause and is only logged.
type Error struct {
	Code    string
	Message string // sentence case, ends with a period
	Reason  string // optional fine-grained reason (authentication errors)
	Details []FieldError
	Err     error
}

func (e *Error) Error() string {
	s := "kyc: " + e.Code + ": " + e.Message
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a VALIDATION_ERROR listing every invalid field.
func Invalid(details ...FieldError) *Error {
	msg := "The request has invalid fields."
	if len(details) == 1 {
		msg = "The request has an invalid field."
	}
	return &Error{Code: EValidation, Message: msg, Details: details}
}

// ErrorCode returns the code of err, or EInternal for anything that is not
// an *Error.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// AsError returns err's *Error, or a generic internal error that hides the
// cause from clients.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: EInternal, Message: "Internal error.", Err: err}
}
