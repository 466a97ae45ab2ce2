package server

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"kycd/aml"
	"kycd/kyc"
	"kycd/store"
)

// amlCaseJSON is an AML case of the API: the investigation a confirmed
// match opened.
type amlCaseJSON struct {
	ID           string              `json:"id"`
	Environment  kyc.Environment     `json:"environment"`
	CheckID      string              `json:"checkId"`
	MatchID      string              `json:"matchId"`
	MatchKey     string              `json:"matchKey"`
	Status       kyc.AMLCaseStatus   `json:"status"`
	Outcome      *kyc.AMLCaseOutcome `json:"outcome"`
	AssigneeID   *string             `json:"assigneeId"`
	AssigneeName *string             `json:"assigneeName"`
	DueAt        *string             `json:"dueAt"`
	Overdue      bool                `json:"overdue"`
	OpenedAt     string              `json:"openedAt"`
	ClosedAt     *string             `json:"closedAt"`
	UpdatedAt    string              `json:"updatedAt"`
	SAR          *sarJSON            `json:"sar"`
	Timeline     []caseEntryJSON     `json:"timeline,omitempty"`
}

type sarJSON struct {
	Reference  string        `json:"reference"`
	FiledOn    string        `json:"filedOn"`
	File       *sarFileJSON  `json:"file"`
	RecordedAt string        `json:"recordedAt"`
	ActorType  kyc.ActorType `json:"actorType"`
	ActorID    string        `json:"actorId"`
}

type sarFileJSON struct {
	Name        string `json:"name"`
	ContentType string `json:"contentType"`
	Size        int    `json:"size"`
	SHA256      string `json:"sha256"`
}

type caseEntryJSON struct {
	ID        string               `json:"id"`
	Kind      kyc.AMLCaseEntryKind `json:"kind"`
	Text      string               `json:"text"`
	ActorType kyc.ActorType        `json:"actorType"`
	ActorID   string               `json:"actorId"`
	ActorName *string              `json:"actorName"`
	CreatedAt string               `json:"createdAt"`
}

func toAMLCaseJSON(now time.Time) func(c *kyc.AMLCase) amlCaseJSON {
	return func(c *kyc.AMLCase) amlCaseJSON {
		j := amlCaseJSON{ID: c.ID, Environment: c.Environment, CheckID: c.CheckID, MatchID: c.MatchID, MatchKey: c.MatchKey,
			Status: c.Status, Outcome: c.Outcome, AssigneeID: c.AssigneeID, AssigneeName: c.AssigneeName, DueAt: timePtr(c.DueAt),
			Overdue: c.Overdue(now), OpenedAt: kyc.FormatTime(c.OpenedAt), ClosedAt: timePtr(c.ClosedAt), UpdatedAt: kyc.FormatTime(c.UpdatedAt)}
		if c.SAR != nil {
			j.SAR = &sarJSON{Reference: c.SAR.Reference, FiledOn: c.SAR.FiledOn, RecordedAt: kyc.FormatTime(c.SAR.RecordedAt),
				ActorType: c.SAR.ActorType, ActorID: c.SAR.ActorID}
			if f := c.SAR.File; f != nil {
				j.SAR.File = &sarFileJSON{Name: f.Name, ContentType: f.ContentType, Size: f.Size, SHA256: f.SHA256}
			}
		}
		if c.Timeline != nil {
			j.Timeline = make([]caseEntryJSON, 0, len(c.Timeline))
			for _, e := range c.Timeline {
				j.Timeline = append(j.Timeline, caseEntryJSON{ID: e.ID, Kind: e.Kind, Text: e.Text, ActorType: e.ActorType, ActorID: e.ActorID,
					ActorName: e.ActorName, CreatedAt: kyc.FormatTime(e.CreatedAt)})
			}
		}
		return j
	}
}

// handleAMLCaseList handles "GET /v1/aml-cases": open cases by due time
// first, then closed ones; filters status, assigneeId and overdue.
func (s *Server) handleAMLCaseList(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	p, size := q.paging()
	f := store.AMLCaseFilter{Page: p, Size: size, Now: s.store.Now()}
	f.Status = kyc.AMLCaseStatus(q.str("status"))
	if f.Status != "" && !f.Status.Valid() {
		q.errs = append(q.errs, kyc.FieldError{Field: "status", Message: "must be open or closed"})
	}
	f.AssigneeID = q.str("assigneeId")
	f.Overdue = q.boolParam("overdue")
	if err := q.check(); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	list, total, err := s.store.FindAMLCases(r.Context(), key.OrganizationID, key.Environment, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newPage(mapAll(list, toAMLCaseJSON(f.Now)), p, size, total))
	return nil
}

// handleAMLCaseGet handles "GET /v1/aml-cases/{id}": the case with its
// timeline.
func (s *Server) handleAMLCaseGet(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	c, err := s.store.FindAMLCase(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toAMLCaseJSON(s.store.Now())(c))
	return nil
}

// handleAMLCaseUpdate handles "PATCH /v1/aml-cases/{id}": assigneeId
// (null unassigns), dueAt (null removes), status with outcome (closing
// needs an outcome; both need a note) and note (added to the timeline).
func (s *Server) handleAMLCaseUpdate(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	var u aml.CaseUpdate
	var errs []kyc.FieldError
	if _, ok := o.raw["assigneeId"]; ok {
		empty := ""
		u.AssigneeID = &empty
		if v := o.str("assigneeId"); v != nil {
			if *v == "" {
				errs = append(errs, kyc.FieldError{Field: "assigneeId", Message: "must be a user id, or null to unassign"})
			}
			u.AssigneeID = v
		}
	}
	if _, ok := o.raw["dueAt"]; ok {
		u.ClearDue = true
		if v := o.str("dueAt"); v != nil {
			t, err := time.Parse(time.RFC3339, *v)
			if err != nil {
				errs = append(errs, kyc.FieldError{Field: "dueAt", Message: "must be a date-time (RFC 3339), or null to remove it"})
			}
			u.DueAt, u.ClearDue = &t, false
		}
	}
	if v := o.str("status"); v != nil {
		st := kyc.AMLCaseStatus(*v)
		u.Status = &st
	}
	if v := o.str("outcome"); v != nil {
		oc := kyc.AMLCaseOutcome(*v)
		u.Outcome = &oc
	}
	if v := o.str("note"); v != nil {
		u.Note = *v
	}
	errs = append(errs, aml.ValidateCaseUpdate(u)...)
	if err := o.check(errs); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		c, err := s.aml.UpdateCase(tx, key.OrganizationID, key.Environment, r.PathValue("id"), u, aml.Actor{Type: kyc.ActorAPIKey, ID: "key_" + key.ID})
		if err != nil {
			return nil, err
		}
		return toAMLCaseJSON(tx.Now())(c), nil
	})
}

// maxSARForm bounds a SAR upload: the copy and the form's small fields.
const maxSARForm = kyc.MaxSARFileBytes + 64<<10

// handleAMLCaseSAR handles "PUT /v1/aml-cases/{id}/sar": a
// multipart/form-data body with reference, filedOn and optionally file
// (a PDF, PNG, JPEG or XML copy of what was filed; its type is read from
// its bytes). A later record replaces the earlier one.
func (s *Server) handleAMLCaseSAR(w http.ResponseWriter, r *http.Request) error {
	u, err := readSARForm(w, r)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		c, err := s.aml.RecordSAR(tx, key.OrganizationID, key.Environment, r.PathValue("id"), u, aml.Actor{Type: kyc.ActorAPIKey, ID: "key_" + key.ID})
		if err != nil {
			return nil, err
		}
		return toAMLCaseJSON(tx.Now())(c), nil
	})
}

// readSARForm reads the multipart form of a SAR record, bounded.
func readSARForm(w http.ResponseWriter, r *http.Request) (aml.SARUpload, error) {
	var u aml.SARUpload
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return u, kyc.Invalid(kyc.FieldError{Field: "body", Message: "must be multipart/form-data with reference, filedOn and file"})
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSARForm)
	if err := r.ParseMultipartForm(maxSARForm); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return u, &statusError{err: &kyc.Error{Code: kyc.EValidation, Message: fmt.Sprintf("The request body is larger than %d bytes.", maxSARForm),
				Details: []kyc.FieldError{{Field: "file", Message: fmt.Sprintf("must be at most %d MB", kyc.MaxSARFileBytes>>20)}}}, status: http.StatusRequestEntityTooLarge}
		}
		return u, kyc.Invalid(kyc.FieldError{Field: "body", Message: "is not a readable multipart/form-data body"})
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	u.Reference, u.FiledOn = r.FormValue("reference"), r.FormValue("filedOn")
	f, h, err := r.FormFile("file")
	switch {
	case errors.Is(err, http.ErrMissingFile):
	case err != nil:
		return u, kyc.Invalid(kyc.FieldError{Field: "file", Message: "could not be read"})
	default:
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, kyc.MaxSARFileBytes+1))
		if err != nil {
			return u, kyc.Invalid(kyc.FieldError{Field: "file", Message: "could not be read"})
		}
		u.File, u.FileName = b, h.Filename
		if u.File == nil {
			u.File = []byte{}
		}
	}
	return u, nil
}

// handleAMLCaseSARFile handles "GET /v1/aml-cases/{id}/sar/file": the
// copy of the filed report, as recorded. Reading it is audited.
func (s *Server) handleAMLCaseSARFile(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	c, err := s.store.FindAMLCase(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	if c.SAR == nil || c.SAR.File == nil {
		return kyc.Errorf(kyc.ENotFound, "AML case %s has no report file.", c.ID)
	}
	b, err := s.store.AMLCaseSARFile(r.Context(), c)
	if err != nil {
		return err
	}
	if err := s.store.RecordAccess(r.Context(), key.OrganizationID, key.Environment, "aml_case", c.ID, store.AccessSARFile, ""); err != nil {
		return err
	}
	w.Header().Set("Content-Type", c.SAR.File.ContentType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": c.SAR.File.Name}))
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	return nil
}
