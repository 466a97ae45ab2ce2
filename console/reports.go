package console

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"kycd/report"
	"kycd/store"
)

// handleCaseReportPDF handles "GET /console/{env}/cases/{id}/report.pdf":
// the same report as the API's.
func (c *console) handleCaseReportPDF(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	rep, err := report.BuildKYC(r.Context(), c.store, sess.User.OrganizationID, env(r), r.PathValue("id"), c.now())
	if err != nil {
		return err
	}
	if err := c.store.RecordAccess(r.Context(), sess.User.OrganizationID, env(r), "kyc_request", rep.Request.ID, store.AccessReportPDF, ""); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.WriteKYCPDF(&buf, rep); err != nil {
		return err
	}
	return c.download(w, r, "application/pdf", rep.Request.PublicID+"-report.pdf", buf.Bytes())
}

// handleCaseReportJSON handles "GET /console/{env}/cases/{id}/report.json".
func (c *console) handleCaseReportJSON(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	rep, err := report.BuildKYC(r.Context(), c.store, sess.User.OrganizationID, env(r), r.PathValue("id"), c.now())
	if err != nil {
		return err
	}
	if err := c.store.RecordAccess(r.Context(), sess.User.OrganizationID, env(r), "kyc_request", rep.Request.ID, store.AccessReportJSON, ""); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return c.download(w, r, "application/json", rep.Request.PublicID+"-report.json", b)
}

// handleAlertReportPDF handles "GET /console/{env}/alerts/{id}/report.pdf".
func (c *console) handleAlertReportPDF(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	rep, err := report.BuildAML(r.Context(), c.store, sess.User.OrganizationID, env(r), r.PathValue("id"), c.now())
	if err != nil {
		return err
	}
	if err := c.store.RecordAccess(r.Context(), sess.User.OrganizationID, env(r), "aml_check", rep.Check.ID, store.AccessReportPDF, ""); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.WriteAMLPDF(&buf, rep); err != nil {
		return err
	}
	return c.download(w, r, "application/pdf", rep.Check.PublicID+"-report.pdf", buf.Bytes())
}

func (c *console) download(w http.ResponseWriter, r *http.Request, contentType, name string, body []byte) error {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(body); err != nil {
		c.log.DebugContext(r.Context(), "console download interrupted", "file", name, "err", err)
	}
	return nil
}
