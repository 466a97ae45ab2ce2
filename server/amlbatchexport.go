package server

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"

	"kycd/kyc"
)

// safeCell keeps a spreadsheet from reading a cell as a formula: a value
// starting with =, +, -, @, a tab or a carriage return gets a leading
// apostrophe (OWASP's advice for CSV injection). Names and references
// come from customers' data, so any of them may start that way.
func safeCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// handleAMLBatchExport handles "GET /v1/aml-batches/{id}/rows.csv": every
// row of the batch with its outcome, as a CSV file safe to open in a
// spreadsheet.
func (s *Server) handleAMLBatchExport(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	if err := q.check(); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	b, err := s.store.FindAMLBatch(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	rows, _, err := s.store.FindBatchRows(r.Context(), b.ID, "", 1, kyc.MaxBatchSubjects)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+b.ID+`.csv"`)
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"index", "status", "firstName", "lastName", "dob", "country", "externalRef", "checkId", "checkStatus",
		"riskLevel", "matchCount", "reviewStatus", "errors"})
	for _, row := range rows {
		var status, risk, matches, review string
		if row.CheckStatus != nil {
			status, matches, review = string(*row.CheckStatus), strconv.Itoa(*row.MatchCount), string(*row.ReviewStatus)
			if row.RiskLevel != nil {
				risk = string(*row.RiskLevel)
			}
		}
		var errs []string
		for _, e := range row.Errors {
			errs = append(errs, e.Field+": "+e.Message)
		}
		sub := row.Subject
		rec := []string{strconv.Itoa(row.Index), string(row.Status), deref(sub.FirstName), deref(sub.LastName), deref(sub.DOB),
			deref(sub.Country), deref(sub.ExternalRef), deref(row.CheckID), status, risk, matches, review, strings.Join(errs, "; ")}
		for i := range rec {
			rec[i] = safeCell(rec[i])
		}
		// The status is written; a write error is the client gone, which
		// no answer can reach any more: logged, not answered.
		if err := cw.Write(rec); err != nil {
			s.log.Info("batch export cut short", "batch", b.ID, "err", err)
			return nil
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		s.log.Info("batch export cut short", "batch", b.ID, "err", err)
	}
	return nil
}
