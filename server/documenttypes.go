package server

import (
	"net/http"

	"kycd/decision"
	"kycd/kyc"
)

type documentTypesJSON struct {
	Data []decision.DocumentKind `json:"data"`
}

// handleDocumentTypes handles "GET /v1/document-types": what kycd reads
// from each kind of document (optionally for one country) and what goes
// to a reviewer.
func (s *Server) handleDocumentTypes(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	country := q.str("country")
	if country != "" && !kyc.ValidCountry(country) {
		q.errs = append(q.errs, kyc.FieldError{Field: "country", Message: "must be an ISO 3166-1 alpha-2 country code"})
	}
	if err := q.check(); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, documentTypesJSON{Data: decision.DocumentKinds(country)})
	return nil
}
