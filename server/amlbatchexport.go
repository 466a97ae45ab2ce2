package server

import (
	"net/http"

	"kycd/aml"
	"kycd/kyc"
)

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
	// The status is written; a write error is the client gone, which no
	// answer can reach any more: logged, not answered.
	if err := aml.WriteBatchCSV(w, rows, true); err != nil {
		s.log.Info("batch export cut short", "batch", b.ID, "err", err)
	}
	return nil
}
