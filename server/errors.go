package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"kycd/kyc"
)

// statusByCode is the one place error codes become HTTP statuses.
var statusByCode = map[string]int{
	kyc.EValidation:        http.StatusBadRequest,
	kyc.EInvalidTransition: http.StatusBadRequest,
	kyc.EMissingAPIKey:     http.StatusUnauthorized,
	kyc.EInvalidAPIKey:     http.StatusUnauthorized,
	kyc.EForbidden:         http.StatusForbidden,
	kyc.EWrongEnvironment:  http.StatusForbidden,
	kyc.ENotFound:          http.StatusNotFound,
	kyc.EMethodNotAllowed:  http.StatusMethodNotAllowed,
	kyc.EConflict:          http.StatusConflict,
	kyc.EUnprocessable:     http.StatusUnprocessableEntity,
	kyc.ERateLimited:       http.StatusTooManyRequests,
	kyc.EInternal:          http.StatusInternalServerError,
	kyc.EUnavailable:       http.StatusServiceUnavailable,
}

// typeByCode gives error.type, the broad category of spec §7.1 (only
// "validation" is published; the others are ours and listed in the
// OpenAPI description).
var typeByCode = map[string]string{
	kyc.EValidation:        "validation",
	kyc.EInvalidTransition: "invalid_state",
	kyc.EMissingAPIKey:     "authentication",
	kyc.EInvalidAPIKey:     "authentication",
	kyc.EForbidden:         "authorization",
	kyc.EWrongEnvironment:  "authorization",
	kyc.ENotFound:          "not_found",
	kyc.EMethodNotAllowed:  "invalid_request",
	kyc.EConflict:          "conflict",
	kyc.EUnprocessable:     "unprocessable",
	kyc.ERateLimited:       "rate_limit",
	kyc.EInternal:          "internal",
	kyc.EUnavailable:       "unavailable",
}

// errorBody is the envelope of spec §7.1, plus reason (issue #1's
// resolution of the two published authentication code lists).
type errorBody struct {
	Error errorFields `json:"error"`
}

type errorFields struct {
	Type    string           `json:"type"`
	Message string           `json:"message"`
	Code    string           `json:"code"`
	Reason  string           `json:"reason,omitempty"`
	Details []kyc.FieldError `json:"details"`
}

// unavailableRetryAfter is the Retry-After of a 503, in seconds: a full
// or failing disk is not fixed in a second, and clients back off from
// there (spec §7.4).
const unavailableRetryAfter = 30

// statusError lets an error choose a status other than its code's default
// (413 for a body over the limit).
type statusError struct {
	err    *kyc.Error
	status int
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// writeError writes err as the §7.1 envelope. Internal causes are recorded
// for the access log, never sent. A client that went away gets nothing.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	info := requestInfoFrom(r.Context())
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		info.status, info.err = 499, err
		return
	}
	e := kyc.AsError(err)
	status, ok := statusByCode[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	var se *statusError
	if errors.As(err, &se) {
		status = se.status
	}
	if status >= 500 {
		// Hide whatever the message said: it was not meant for clients.
		e = &kyc.Error{Code: kyc.EInternal, Message: "Internal error. Retry with backoff; if it persists, contact the operator with the X-Request-Id.", Err: err}
		if status == http.StatusServiceUnavailable {
			e.Code, e.Message = kyc.EUnavailable, "Service temporarily unavailable. Retry with backoff."
			w.Header().Set("Retry-After", strconv.Itoa(unavailableRetryAfter))
		}
	}
	info.err = err
	details := e.Details
	if details == nil {
		details = []kyc.FieldError{}
	}
	writeJSON(w, status, errorBody{Error: errorFields{Type: typeByCode[e.Code], Message: e.Message, Code: e.Code, Reason: e.Reason, Details: details}})
}
