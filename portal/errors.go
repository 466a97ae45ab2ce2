package portal

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"kycd/kyc"
	"kycd/verification"
)

// The portal's own errors. Their Message is a catalog key: writeAPIError
// puts the applicant's language in its place (localize).
var (
	errNoRoute     = &kyc.Error{Code: kyc.ENotFound, Message: "error.no_route"}
	errUnknownLink = &kyc.Error{Code: kyc.ENotFound, Message: "error.unknown_link"}
	errCrossOrigin = &kyc.Error{Code: kyc.EForbidden, Message: "error.cross_origin"}
)

// invalidForm is the VALIDATION_ERROR for an upload form the page built
// wrongly. Only a broken or stale page sends one, so the message tells the
// applicant the one thing they can do; the details name the fields for
// whoever debugs it.
func invalidForm(details ...kyc.FieldError) error {
	return &kyc.Error{Code: kyc.EValidation, Details: details, Message: "error.form_broken"}
}

// statusError gives an error a status other than its code's (413 and 415
// for refused uploads) or one the portal has no other use for (429 and
// 503, with Retry-After).
type statusError struct {
	err        *kyc.Error
	status     int
	retryAfter time.Duration // > 0: sent as Retry-After, whole seconds rounded up
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// typeByCode is error.type of the §7.1 envelope, as the API uses it.
var typeByCode = map[string]string{
	kyc.EValidation:    "validation",
	kyc.EForbidden:     "authorization",
	kyc.ENotFound:      "not_found",
	kyc.EUnprocessable: "unprocessable",
	kyc.EConflict:      "conflict",
	kyc.ERateLimited:   "rate_limit",
	kyc.EUnavailable:   "unavailable",
	kyc.EInternal:      "internal",
}

// errorBody is the §7.1 envelope. Reason is the page kind for a link that
// cannot be used (expired, cancelled, done), or capture's refusal code for
// an image (too_large, unsupported_type, too_small, too_many_pixels,
// corrupt), so that the page can react without parsing the message.
type errorBody struct {
	Error struct {
		Type    string           `json:"type"`
		Message string           `json:"message"`
		Code    string           `json:"code"`
		Reason  string           `json:"reason,omitempty"`
		Details []kyc.FieldError `json:"details"`
	} `json:"error"`
}

// internalMessage replaces any message of an unexpected error: its text
// was not written for the applicant and may name internals. It is the
// English of error.internal, for the one answer written without a
// catalog (a response that could not be encoded).
const internalMessage = "Something went wrong on our side. Please try again in a moment."

// linkGone reports whether err is the service's refusal of a link that can
// no longer be used, and which state the link is in.
func linkGone(err error) (verification.LinkState, bool) {
	var e *kyc.Error
	if !errors.As(err, &e) || e.Code != kyc.EUnprocessable {
		return "", false
	}
	switch st := verification.LinkState(e.Reason); st {
	case verification.LinkExpired, verification.LinkCancelled, verification.LinkDone:
		return st, true
	}
	return "", false
}

// classify picks the status and the client-safe error for err. Anything
// the portal does not expect is a 500 whose cause is logged, never shown.
func (p *portal) classify(r *http.Request, err error) (int, *kyc.Error) {
	var se *statusError
	if errors.As(err, &se) {
		return se.status, se.err
	}
	if _, ok := linkGone(err); ok {
		return http.StatusGone, kyc.AsError(err)
	}
	var e *kyc.Error
	if errors.As(err, &e) {
		switch e.Code {
		case kyc.EValidation:
			return http.StatusBadRequest, e
		case kyc.ENotFound:
			return http.StatusNotFound, e
		case kyc.EForbidden:
			return http.StatusForbidden, e
		}
	}
	// The route pattern, not the path: the path holds the link's token.
	p.log.ErrorContext(r.Context(), "portal request failed", "route", r.Pattern, "err", err)
	return http.StatusInternalServerError, &kyc.Error{Code: kyc.EInternal, Message: "error.internal"}
}

// clientGone reports whether err only says the applicant's browser went
// away; nothing can be written then.
func clientGone(r *http.Request, err error) bool {
	return r.Context().Err() != nil && errors.Is(err, context.Canceled)
}

// writeAPIError writes err as the §7.1 envelope.
func (p *portal) writeAPIError(w http.ResponseWriter, r *http.Request, err error) {
	if clientGone(r, err) {
		p.log.DebugContext(r.Context(), "portal client went away", "route", r.Pattern)
		return
	}
	status, e := p.classify(r, err)
	e = p.localize(catalog(r, nil, nil), e)
	var se *statusError
	if errors.As(err, &se) && se.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((se.retryAfter+time.Second-1)/time.Second)))
	}
	var body errorBody
	body.Error.Type, body.Error.Message, body.Error.Code, body.Error.Reason = typeByCode[e.Code], e.Message, e.Code, e.Reason
	body.Error.Details = e.Details
	if body.Error.Details == nil {
		body.Error.Details = []kyc.FieldError{}
	}
	p.writeJSON(w, r, status, body)
}

// writePageError answers a page request that failed with the page for
// the error: not found, the link's state, or the generic error page.
func (p *portal) writePageError(w http.ResponseWriter, r *http.Request, err error) {
	if clientGone(r, err) {
		p.log.DebugContext(r.Context(), "portal client went away", "route", r.Pattern)
		return
	}
	if st, ok := linkGone(err); ok {
		// The state pages name the organization: find the request again
		// (the link was valid a moment ago).
		var req *kyc.KYCRequest
		if token, terr := tokenParam(r); terr == nil {
			req, _, _ = p.svc.PortalState(r.Context(), token)
		}
		p.renderState(w, r, http.StatusGone, pageKind(st), req)
		return
	}
	status, _ := p.classify(r, err)
	kind := stateError
	if status == http.StatusNotFound {
		kind = stateNotFound
	}
	p.renderState(w, r, status, kind, nil)
}

// writeJSON writes v with status. A failed write means the client went
// away; it is logged, as there is nobody left to tell.
func (p *portal) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		p.log.ErrorContext(r.Context(), "portal encode response", "route", r.Pattern, "err", err)
		status, b = http.StatusInternalServerError, []byte(`{"error":{"type":"internal","message":"`+internalMessage+`","code":"`+kyc.EInternal+`","details":[]}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if _, err := w.Write(b); err != nil {
		p.log.DebugContext(r.Context(), "portal write response", "route", r.Pattern, "err", err)
	}
}

// linkError is the error for a link in state st, the service's own kind
// (UNPROCESSABLE with the state as reason), or nil for an open link. The
// portal asks before work the service would refuse only at the end.
func linkError(st verification.LinkState) error {
	switch st {
	case verification.LinkExpired, verification.LinkCancelled, verification.LinkDone:
		return &kyc.Error{Code: kyc.EUnprocessable, Message: "error.link_" + string(st), Reason: string(st)}
	}
	return nil
}
