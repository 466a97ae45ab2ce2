package server

import (
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"kycd/kyc"
	"kycd/store"
)

// The personal data lifecycle of the API (docs/personal-data.md):
// erasure on request, its receipt, and legal hold.

// legalHoldJSON is an applicant's legal hold; null when there is none.
type legalHoldJSON struct {
	Reason string `json:"reason"`
	Since  string `json:"since"`
}

// erasureScheduledJSON answers an erasure that retention defers (202).
type erasureScheduledJSON struct {
	Object             string `json:"object"`
	ApplicantID        string `json:"applicantId"`
	ErasureScheduledAt string `json:"erasureScheduledAt"`
	Retention          string `json:"retention"`
}

// ErasureScheduledView is the answer to an erasure that retention defers,
// as DELETE /v1/applicants/{id} gives it with 202; kycd applicants erase
// prints the same.
func ErasureScheduledView(applicantID string, d *kyc.ErasureDeferred) any {
	return erasureScheduledJSON{Object: "applicant_erasure_scheduled", ApplicantID: applicantID,
		ErasureScheduledAt: kyc.FormatTime(d.NotBefore), Retention: d.Rule}
}

// ApplicantView is an applicant as GET /v1/applicants/{id} shows it; kycd
// applicants show prints the same.
func ApplicantView(a *kyc.Applicant) any { return toApplicantJSON(a) }

// MaxLifecycleReason is the longest reason (in characters) an erasure or
// a legal hold takes, through the API, the console and the CLI alike.
const MaxLifecycleReason = maxLifecycleReason

const maxLifecycleReason = 500

// readReason reads the body's reason: required when required is set.
func readReason(w http.ResponseWriter, r *http.Request, required bool) (*string, error) {
	b, err := readBody(w, r)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		if required {
			return nil, kyc.Invalid(kyc.FieldError{Field: "reason", Message: "is required"})
		}
		return nil, nil
	}
	o, err := parseObject(b)
	if err != nil {
		return nil, err
	}
	reason := o.str("reason")
	var errs []kyc.FieldError
	if reason != nil {
		t := strings.TrimSpace(*reason)
		reason = &t
	}
	switch {
	case reason == nil || *reason == "":
		if required {
			errs = append(errs, kyc.FieldError{Field: "reason", Message: "is required"})
		}
		reason = nil
	case utf8.RuneCountInString(*reason) > maxLifecycleReason:
		errs = append(errs, kyc.FieldError{Field: "reason", Message: "must be at most 500 characters"})
	}
	if err := o.check(errs); err != nil {
		return nil, err
	}
	return reason, nil
}

// handleApplicantErase handles "DELETE /v1/applicants/{id}": 200 with the
// erasure receipt when retention allows (and again, the same receipt, for
// an applicant already erased); 202 with erasureScheduledAt when it does
// not yet; 409 legal_hold while a hold is on.
func (s *Server) handleApplicantErase(w http.ResponseWriter, r *http.Request) error {
	reason, err := readReason(w, r, false)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	rec, err := s.store.EraseApplicant(r.Context(), store.ErasureRequest{OrganizationID: key.OrganizationID,
		Environment: key.Environment, ApplicantID: r.PathValue("id"), Rule: kyc.ErasureOnRequest, Reason: reason})
	var deferred *kyc.ErasureDeferred
	if errors.As(err, &deferred) {
		writeJSON(w, http.StatusAccepted, ErasureScheduledView(r.PathValue("id"), deferred))
		return nil
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rec)
	return nil
}

// handleApplicantErasure handles "GET /v1/applicants/{id}/erasure": the
// receipt kept after an erasure.
func (s *Server) handleApplicantErasure(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	a, err := s.store.FindApplicant(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	rec, err := s.store.FindErasure(r.Context(), key.OrganizationID, key.Environment, a.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rec)
	return nil
}

// handleLegalHoldSet handles "POST /v1/applicants/{id}/legal-hold".
func (s *Server) handleLegalHoldSet(w http.ResponseWriter, r *http.Request) error {
	return s.setLegalHold(w, r, true)
}

// handleLegalHoldLift handles "POST /v1/applicants/{id}/legal-hold/lift".
func (s *Server) handleLegalHoldLift(w http.ResponseWriter, r *http.Request) error {
	return s.setLegalHold(w, r, false)
}

func (s *Server) setLegalHold(w http.ResponseWriter, r *http.Request, hold bool) error {
	reason, err := readReason(w, r, true)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		a, err := tx.SetLegalHold(key.OrganizationID, key.Environment, r.PathValue("id"), hold, *reason)
		if err != nil {
			return nil, err
		}
		return toApplicantJSON(a), nil
	})
}

// timeString formats an optional time for the API.
func timeString(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := kyc.FormatTime(*t)
	return &s
}
