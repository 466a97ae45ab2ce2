package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"time"

	"kycd/aml"
	"kycd/kyc"
	"kycd/store"
)

// batchPath is where batches are created; its body may be larger.
const batchPath = "/v1/aml-checks/batch"

// maxBatchBody bounds a batch's body: 10,000 subjects of about 100 bytes
// each fit with room for long names and external references.
const maxBatchBody = 8 << 20

// amlBatchJSON is a batch screening of the API.
type amlBatchJSON struct {
	ID               string             `json:"id"`
	Environment      kyc.Environment    `json:"environment"`
	Status           kyc.AMLBatchStatus `json:"status"`
	Monitoring       bool               `json:"monitoring"`
	Total            int                `json:"total"`
	Screened         int                `json:"screened"`
	Failed           int                `json:"failed"`
	Pending          int                `json:"pending"`
	PotentialMatches int                `json:"potentialMatches"`
	CreatedAt        string             `json:"createdAt"`
	UpdatedAt        string             `json:"updatedAt"`
	CompletedAt      *string            `json:"completedAt"`
}

func toAMLBatchJSON(b *kyc.AMLBatch) amlBatchJSON {
	return amlBatchJSON{ID: b.ID, Environment: b.Environment, Status: b.Status, Monitoring: b.Monitoring, Total: b.Total,
		Screened: b.Screened, Failed: b.Failed, Pending: b.Total - b.Screened - b.Failed, PotentialMatches: b.PotentialMatches,
		CreatedAt: kyc.FormatTime(b.CreatedAt), UpdatedAt: kyc.FormatTime(b.UpdatedAt), CompletedAt: timePtr(b.CompletedAt)}
}

type batchRowJSON struct {
	Index   int                   `json:"index"`
	Status  kyc.AMLBatchRowStatus `json:"status"`
	Subject kyc.AMLBatchSubject   `json:"subject"`
	CheckID *string               `json:"checkId"`
	Result  *batchRowResultJSON   `json:"result"`
	Errors  []kyc.FieldError      `json:"errors"`
}

type batchRowResultJSON struct {
	Status       kyc.AMLStatus       `json:"status"`
	RiskLevel    *kyc.RiskLevel      `json:"riskLevel"`
	MatchCount   int                 `json:"matchCount"`
	ReviewStatus kyc.AMLReviewStatus `json:"reviewStatus"`
}

func toBatchRowJSON(r kyc.AMLBatchRow) batchRowJSON {
	j := batchRowJSON{Index: r.Index, Status: r.Status, Subject: r.Subject, CheckID: r.CheckID, Errors: r.Errors}
	if j.Errors == nil {
		j.Errors = []kyc.FieldError{}
	}
	if r.CheckStatus != nil {
		j.Result = &batchRowResultJSON{Status: *r.CheckStatus, RiskLevel: r.RiskLevel, MatchCount: *r.MatchCount, ReviewStatus: *r.ReviewStatus}
	}
	return j
}

// handleAMLBatchCreate handles "POST /v1/aml-checks/batch": the body is a
// JSON array of subjects, or {"subjects": [...], "monitoring": bool}. Each
// subject is validated as POST /v1/aml-checks validates one; a subject
// with problems becomes a failed row with its errors (the others are
// screened), so one typo does not send back 10,000 subjects. The answer is
// 202 with the batch; the aml.batch job screens it.
func (s *Server) handleAMLBatchCreate(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(w, r)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	var list []json.RawMessage
	monitoring := false
	if isCSV(r) {
		// A CSV upload: the subjects only (monitoring stays off).
		if list, err = aml.ParseBatchCSV(b); err != nil {
			return err
		}
	} else if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &list); err != nil {
			return kyc.Invalid(kyc.FieldError{Field: "body", Message: "must be a JSON array of subjects or an object with subjects"})
		}
	} else {
		o, err := parseObject(b)
		if err != nil {
			return err
		}
		envErr := checkEnvironment(o, key)
		if m := o.boolean("monitoring"); m != nil {
			monitoring = *m
		}
		var errs []kyc.FieldError
		if v := o.value("subjects"); v == nil {
			errs = append(errs, kyc.FieldError{Field: "subjects", Message: "is required: an array of subjects"})
		} else if err := json.Unmarshal(v, &list); err != nil {
			errs = append(errs, kyc.FieldError{Field: "subjects", Message: "must be an array of subjects"})
		}
		if err := o.check(errs); err != nil {
			return err
		}
		if envErr != nil {
			return envErr
		}
	}
	switch {
	case len(list) == 0:
		return kyc.Invalid(kyc.FieldError{Field: "subjects", Message: "must hold at least one subject"})
	case len(list) > kyc.MaxBatchSubjects:
		return kyc.Invalid(kyc.FieldError{Field: "subjects", Message: fmt.Sprintf("must hold at most %d subjects", kyc.MaxBatchSubjects)})
	}
	rows := make([]kyc.AMLBatchRow, len(list))
	now := s.now()
	for i, raw := range list {
		rows[i] = batchRow(i, raw, now)
	}
	return s.commit(w, r, http.StatusAccepted, func(tx *store.Tx) (any, error) {
		batch, err := s.aml.CreateBatch(tx, key.OrganizationID, key.Environment, rows, monitoring)
		if err != nil {
			return nil, err
		}
		return toAMLBatchJSON(batch), nil
	})
}

func isCSV(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "text/csv"
}

// batchRow reads and validates one subject; a subject with problems is a
// failed row naming them.
func batchRow(i int, raw json.RawMessage, now time.Time) kyc.AMLBatchRow {
	row := kyc.AMLBatchRow{Index: i, Status: kyc.AMLRowPending}
	o, err := parseObject(raw)
	if err != nil {
		row.Status, row.Errors = kyc.AMLRowFailed, []kyc.FieldError{{Field: "subject", Message: "must be a JSON object"}}
		return row
	}
	// Kept as sent, failed or not, so a row can be told by its data.
	row.Subject = kyc.AMLBatchSubject{FirstName: o.str("firstName"), LastName: o.str("lastName"), DOB: o.str("dob"), Country: o.str("country"),
		ExternalRef: o.str("externalRef")}
	if err := o.check(aml.BatchSubjectErrors(row.Subject, now)); err != nil {
		row.Status = kyc.AMLRowFailed
		if ke := kyc.AsError(err); ke != nil {
			row.Errors = ke.Details
		}
	}
	return row
}

// handleAMLBatchGet handles "GET /v1/aml-batches/{id}": progress.
func (s *Server) handleAMLBatchGet(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	b, err := s.store.FindAMLBatch(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toAMLBatchJSON(b))
	return nil
}

// handleAMLBatchRows handles "GET /v1/aml-batches/{id}/rows": one page of
// rows in the order sent, optionally by status.
func (s *Server) handleAMLBatchRows(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	p, size := q.paging()
	status := kyc.AMLBatchRowStatus(q.str("status"))
	if status != "" && status != kyc.AMLRowPending && status != kyc.AMLRowScreened && status != kyc.AMLRowFailed {
		q.errs = append(q.errs, kyc.FieldError{Field: "status", Message: "must be one of pending, screened, failed"})
	}
	if err := q.check(); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	b, err := s.store.FindAMLBatch(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	rows, total, err := s.store.FindBatchRows(r.Context(), b.ID, status, p, size)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newPage(mapAll(rows, toBatchRowJSON), p, size, total))
	return nil
}
