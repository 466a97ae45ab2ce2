package portal

import (
	"errors"
	"strconv"

	"kycd/capture"
	"kycd/kyc"
	"kycd/locale"
	"kycd/verification"
)

// submitFields are the details of the service's refusal of a submission
// with something missing.
var submitFields = map[string]bool{"document.front": true, "document.back": true, "selfie": true, "documentData": true}

// localize returns e with its message, and the messages of its details,
// in c's language. The portal's own errors carry catalog keys; the
// errors of the service and of capture are recognised by code and
// reason, never by their English text. A message that is neither stays as
// it is (a detail of a form only a broken page sends, say).
func (p *portal) localize(c *locale.Catalog, e *kyc.Error) *kyc.Error {
	out := *e
	out.Details = make([]kyc.FieldError, len(e.Details))
	copy(out.Details, e.Details)
	switch {
	case e.Code == kyc.EValidation && isCaptureCode(e.Reason):
		out.Message = p.imageMessage(c, e)
		for i := range out.Details {
			if out.Details[i].Field == "image" {
				out.Details[i].Message = out.Message
			}
		}
		return &out
	case e.Code == kyc.EUnavailable:
		out.Message = c.T("error.busy") // capture's gate is full
		return &out
	case e.Code == kyc.EUnprocessable && e.Reason == "too_many_sessions":
		out.Message = c.T("error.liveness_sessions_used", "n", strconv.Itoa(kyc.MaxLivenessSessions))
		return &out
	case e.Code == kyc.EConflict && e.Reason == "session_used":
		out.Message = c.T("error.liveness_used") // the portal's or the store's
		return &out
	case e.Code == kyc.EValidation && e.Reason == "nonce_mismatch":
		out.Message = c.T("error.liveness_nonce")
		return &out
	case e.Code == kyc.EUnprocessable && isLinkState(e.Reason):
		out.Message = c.T("error.link_" + e.Reason)
		return &out
	case e.Code == kyc.ENotFound && !c.Has(e.Message):
		out.Message = c.T("error.unknown_link") // the store's "This link is not valid."
		return &out
	case e.Code == kyc.EValidation && isSubmitRefusal(e):
		out.Message = c.T("error.submit_missing_photos")
		for i := range out.Details {
			if out.Details[i].Field == "documentData" {
				out.Message = c.T("error.submit_missing")
			}
			out.Details[i].Message = c.T("field.required")
		}
		return &out
	}
	if c.Has(e.Message) {
		out.Message = c.T(e.Message)
	}
	for i, d := range out.Details {
		if c.Has(d.Message) {
			out.Details[i].Message = c.T(d.Message)
		}
	}
	return &out
}

// imageMessage is the applicant's message for capture's refusal e.
func (p *portal) imageMessage(c *locale.Catalog, e *kyc.Error) string {
	var ce *capture.Error
	if errors.As(e, &ce) && ce.Costly {
		// Within the pixel limit: "too many pixels" would name the wrong
		// cause (a progressive JPEG re-saved by an app, say).
		return c.T("error.image_too_costly")
	}
	switch e.Reason {
	case capture.ETooLarge:
		return c.T("error.image_too_large", "size", strconv.FormatInt(p.limits.MaxBytes>>20, 10)+" MB")
	case capture.ETooManyPixels:
		mp := p.limits.MaxPixels
		if mp <= 0 {
			mp = capture.DefaultMaxPixels
		}
		return c.T("error.image_too_many_pixels", "megapixels", strconv.FormatInt(mp/1_000_000, 10))
	case capture.ETooSmall:
		side := p.limits.MinSide
		if side <= 0 {
			side = capture.DefaultMinSide
		}
		return c.T("error.image_too_small", "pixels", strconv.Itoa(side))
	case capture.EUnsupportedType:
		return c.T("error.image_unsupported")
	}
	return c.T("error.image_corrupt")
}

func isCaptureCode(s string) bool {
	switch s {
	case capture.ETooLarge, capture.EUnsupportedType, capture.ETooManyPixels, capture.ETooSmall, capture.ECorrupt:
		return true
	}
	return false
}

func isLinkState(s string) bool {
	switch verification.LinkState(s) {
	case verification.LinkExpired, verification.LinkCancelled, verification.LinkDone:
		return true
	}
	return false
}

// isSubmitRefusal reports whether e is verification.Submit's refusal: a
// VALIDATION_ERROR whose every detail names a missing photo or the
// document details.
func isSubmitRefusal(e *kyc.Error) bool {
	if len(e.Details) == 0 {
		return false
	}
	for _, d := range e.Details {
		if !submitFields[d.Field] {
			return false
		}
	}
	return true
}
