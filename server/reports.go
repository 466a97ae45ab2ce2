package server

import (
	"bytes"
	"net/http"
	"strconv"

	"kycd/report"
	"kycd/store"
)

// handleKYCReportJSON handles "GET /v1/kyc-requests/{id}/report.json":
// the report's content as a versioned JSON document.
func (s *Server) handleKYCReportJSON(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	rep, err := report.BuildKYC(r.Context(), s.store, key.OrganizationID, key.Environment, r.PathValue("id"), s.now())
	if err != nil {
		return err
	}
	if err := s.store.RecordAccess(r.Context(), key.OrganizationID, key.Environment, "kyc_request", rep.Request.ID, store.AccessReportJSON, ""); err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", `attachment; filename="`+rep.Request.PublicID+`-report.json"`)
	writeJSON(w, http.StatusOK, rep)
	return nil
}

// handleKYCReportPDF handles "GET /v1/kyc-requests/{id}/report.pdf".
func (s *Server) handleKYCReportPDF(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	rep, err := report.BuildKYC(r.Context(), s.store, key.OrganizationID, key.Environment, r.PathValue("id"), s.now())
	if err != nil {
		return err
	}
	if err := s.store.RecordAccess(r.Context(), key.OrganizationID, key.Environment, "kyc_request", rep.Request.ID, store.AccessReportPDF, ""); err != nil {
		return err
	}
	return s.writePDF(w, rep.Request.PublicID+"-report.pdf", func(b *bytes.Buffer) error { return report.WriteKYCPDF(b, rep) })
}

// handleAMLReportPDF handles "GET /v1/aml-checks/{id}/report.pdf".
func (s *Server) handleAMLReportPDF(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	rep, err := report.BuildAML(r.Context(), s.store, key.OrganizationID, key.Environment, r.PathValue("id"), s.now())
	if err != nil {
		return err
	}
	if err := s.store.RecordAccess(r.Context(), key.OrganizationID, key.Environment, "aml_check", rep.Check.ID, store.AccessReportPDF, ""); err != nil {
		return err
	}
	return s.writePDF(w, rep.Check.PublicID+"-report.pdf", func(b *bytes.Buffer) error { return report.WriteAMLPDF(b, rep) })
}

// writePDF sends a rendered PDF as an attachment. The PDF is rendered to
// memory first, so a rendering error still gets a proper error response.
func (s *Server) writePDF(w http.ResponseWriter, name string, render func(*bytes.Buffer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.Header().Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(buf.Bytes()); err != nil {
		// The status is sent; all that is left is to note it.
		s.log.Info("report download interrupted", "file", name, "err", err)
	}
	return nil
}
