package server

import (
	"bytes"
	"net/http"

	"kycd/kyc"
	"kycd/store"
)

// applicantJSON is the applicant record of the API (spec §2.1). Optional
// fields are always present, null when unset.
type applicantJSON struct {
	ID          string          `json:"id"`
	PublicID    string          `json:"publicId"`
	Environment kyc.Environment `json:"environment"`
	FirstName   string          `json:"firstName"`
	LastName    string          `json:"lastName"`
	Email       *string         `json:"email"`
	Phone       *string         `json:"phone"`
	DOB         *string         `json:"dob"`
	Country     *string         `json:"country"`
	ExternalRef *string         `json:"externalRef"`
	Metadata    map[string]any  `json:"metadata"`
	Status      string          `json:"status"`
	CreatedAt   string          `json:"createdAt"`
	UpdatedAt   string          `json:"updatedAt"`
	ArchivedAt  *string         `json:"archivedAt"`
	// The personal data lifecycle (lifecycle.go).
	LegalHold          *legalHoldJSON `json:"legalHold"`
	ErasureScheduledAt *string        `json:"erasureScheduledAt"`
	ErasedAt           *string        `json:"erasedAt"`
	// RelationshipEndDate (YYYY-MM-DD): decided data is kept from the
	// later of the last decision and this date (kyc.ErasableFrom).
	RelationshipEndDate *string `json:"relationshipEndDate"`
}

func toApplicantJSON(a *kyc.Applicant) applicantJSON {
	j := applicantJSON{
		ID: a.ID, PublicID: a.PublicID, Environment: a.Environment, FirstName: a.FirstName, LastName: a.LastName,
		Email: a.Email, Phone: a.Phone, DOB: a.DOB, Country: a.Country, ExternalRef: a.ExternalRef,
		Metadata: a.Metadata, Status: string(a.Status), RelationshipEndDate: a.RelationshipEnd,
		CreatedAt: kyc.FormatTime(a.CreatedAt), UpdatedAt: kyc.FormatTime(a.UpdatedAt),
	}
	if j.Metadata == nil {
		j.Metadata = map[string]any{}
	}
	j.ArchivedAt, j.ErasureScheduledAt, j.ErasedAt = timeString(a.ArchivedAt), timeString(a.ErasureScheduledAt), timeString(a.ErasedAt)
	if a.LegalHoldReason != nil {
		j.LegalHold = &legalHoldJSON{Reason: *a.LegalHoldReason}
		if a.LegalHoldAt != nil {
			j.LegalHold.Since = kyc.FormatTime(*a.LegalHoldAt)
		}
	}
	return j
}

// readApplicantInput reads the writable applicant fields of o.
func readApplicantInput(o *object) *kyc.ApplicantInput {
	return &kyc.ApplicantInput{
		FirstName: o.str("firstName"), LastName: o.str("lastName"), Email: o.str("email"), Phone: o.str("phone"),
		DOB: o.str("dob"), Country: o.str("country"), ExternalRef: o.str("externalRef"), Metadata: o.anyObject("metadata"),
		RelationshipEnd: o.str("relationshipEndDate"),
	}
}

// handleApplicantCreate handles "POST /v1/applicants": 201 with the applicant.
func (s *Server) handleApplicantCreate(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	envErr := checkEnvironment(o, key)
	in := readApplicantInput(o)
	if err := o.check(in.Validate(true, s.now(), "")); err != nil {
		return err
	}
	if envErr != nil {
		return envErr
	}
	return s.commit(w, r, http.StatusCreated, func(tx *store.Tx) (any, error) {
		a, err := tx.CreateApplicant(key.OrganizationID, key.Environment, in)
		if err != nil {
			return nil, err
		}
		return toApplicantJSON(a), nil
	})
}

// handleApplicantList handles "GET /v1/applicants": one page, newest first.
func (s *Server) handleApplicantList(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	p, size := q.paging()
	archived := q.boolParam("includeArchived")
	if err := q.check(); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	list, total, err := s.store.FindApplicants(r.Context(), key.OrganizationID, key.Environment,
		kyc.ApplicantFilter{IncludeArchived: archived, Page: p, Size: size})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newPage(mapAll(list, toApplicantJSON), p, size, total))
	return nil
}

// handleApplicantGet handles "GET /v1/applicants/{id}".
func (s *Server) handleApplicantGet(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	a, err := s.store.FindApplicant(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toApplicantJSON(a))
	return nil
}

// handleApplicantUpdate handles "PATCH /v1/applicants/{id}": any subset of
// the writable fields; null leaves a field alone, "" clears an optional one.
func (s *Server) handleApplicantUpdate(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	in := readApplicantInput(o)
	if err := o.check(in.Validate(false, s.now(), "")); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		a, err := tx.UpdateApplicant(key.OrganizationID, key.Environment, r.PathValue("id"), in)
		if err != nil {
			return nil, err
		}
		return toApplicantJSON(a), nil
	})
}

// handleApplicantArchive handles "POST /v1/applicants/{id}/archive".
func (s *Server) handleApplicantArchive(w http.ResponseWriter, r *http.Request) error {
	return s.setArchived(w, r, true)
}

// handleApplicantUnarchive handles "POST /v1/applicants/{id}/unarchive".
func (s *Server) handleApplicantUnarchive(w http.ResponseWriter, r *http.Request) error {
	return s.setArchived(w, r, false)
}

func (s *Server) setArchived(w http.ResponseWriter, r *http.Request, archived bool) error {
	if err := readEmptyObject(w, r); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		a, err := tx.SetApplicantArchived(key.OrganizationID, key.Environment, r.PathValue("id"), archived)
		if err != nil {
			return nil, err
		}
		return toApplicantJSON(a), nil
	})
}

// readEmptyObject accepts no body or {} for action endpoints, refusing
// fields so that a client expecting one to matter learns it does not.
func readEmptyObject(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(w, r)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return err
	}
	o, err := parseObject(b)
	if err != nil {
		return err
	}
	return o.check(nil)
}
