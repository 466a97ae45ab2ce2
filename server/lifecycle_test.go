package server_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"kycd/kyc"
	"kycd/store"
)

// TestApplicantErasureAPI: legal hold refuses the erasure (409
// legal_hold) until lifted; then DELETE erases, returns the receipt and
// keeps it; the applicant is a tombstone; erasing again returns the same
// receipt; another organization cannot see or erase it; a decided live
// applicant gets 202 with erasureScheduledAt. Every response is checked
// against the OpenAPI description by e.call.
func TestApplicantErasureAPI(t *testing.T) {
	e := newAPIEnv(t)
	a := e.mustCreate(e.A.SandboxKey, ada)
	id := a["id"].(string)
	if a["legalHold"] != nil || a["erasedAt"] != nil || a["erasureScheduledAt"] != nil {
		t.Fatalf("new applicant lifecycle fields: %v", a)
	}

	for _, tt := range []struct{ name, path, body string }{
		{"hold without reason", "/legal-hold", ``},
		{"hold with blank reason", "/legal-hold", `{"reason":"  "}`},
		{"hold with unknown field", "/legal-hold", `{"reason":"x","until":"never"}`},
		{"lift without reason", "/legal-hold/lift", `{}`},
	} {
		if r := e.call("POST", "/v1/applicants/"+id+tt.path, e.A.SandboxKey, tt.body); r.status != 400 {
			t.Errorf("%s: %d %s", tt.name, r.status, r.body)
		}
	}
	r := e.call("POST", "/v1/applicants/"+id+"/legal-hold", e.A.SandboxKey, `{"reason":"litigation 42"}`)
	if r.status != 200 {
		t.Fatalf("hold: %d %s", r.status, r.body)
	}
	if h, _ := r.json(t)["legalHold"].(map[string]any); h == nil || h["reason"] != "litigation 42" {
		t.Errorf("hold: %s", r.body)
	}
	if r := e.call("DELETE", "/v1/applicants/"+id, e.A.SandboxKey, ""); r.status != 409 {
		t.Fatalf("erase under hold: %d %s", r.status, r.body)
	}
	if r := e.call("POST", "/v1/applicants/"+id+"/legal-hold/lift", e.A.SandboxKey, `{"reason":"settled"}`); r.status != 200 || r.json(t)["legalHold"] != nil {
		t.Fatalf("lift: %d %s", r.status, r.body)
	}
	if r := e.call("DELETE", "/v1/applicants/"+id, e.B.SandboxKey, ""); r.status != 404 {
		t.Errorf("erase by another organization: %d %s", r.status, r.body)
	}
	if r := e.call("DELETE", "/v1/applicants/"+id, e.A.SandboxKey, `{"reason":"art. 17 request #7"}`); r.status != 200 {
		t.Fatalf("erase: %d %s", r.status, r.body)
	} else if rec := r.json(t); rec["object"] != "applicant_erasure" || rec["rule"] != "data_subject_request" ||
		rec["reason"] != "art. 17 request #7" || rec["keyDestroyed"] != true || rec["actorType"] != "api_key" {
		t.Errorf("receipt: %s", r.body)
	}
	got := e.call("GET", "/v1/applicants/"+id, e.A.SandboxKey, "").json(t)
	if got["erasedAt"] == nil || got["firstName"] != "" || got["email"] != nil || got["status"] != "archived" {
		t.Errorf("tombstone: %v", got)
	}
	kept := e.call("GET", "/v1/applicants/"+id+"/erasure", e.A.SandboxKey, "")
	again := e.call("DELETE", "/v1/applicants/"+id, e.A.SandboxKey, "")
	if kept.status != 200 || again.status != 200 || kept.json(t)["id"] != again.json(t)["id"] {
		t.Errorf("kept receipt %d, erase again %d", kept.status, again.status)
	}
	if r := e.call("GET", "/v1/applicants/"+id+"/erasure", e.B.SandboxKey, ""); r.status != 404 {
		t.Errorf("receipt by another organization: %d", r.status)
	}
	if r := e.call("POST", "/v1/applicants/"+id+"/unarchive", e.A.SandboxKey, ""); r.status != 422 {
		t.Errorf("unarchive a tombstone: %d %s", r.status, r.body)
	}
	if r := e.call("POST", "/v1/applicants/"+id+"/legal-hold", e.A.SandboxKey, `{"reason":"late"}`); r.status != 422 {
		t.Errorf("hold a tombstone: %d %s", r.status, r.body)
	}
	// A never-erased applicant has no receipt.
	other := e.mustCreate(e.A.SandboxKey, `{"firstName":"Alan","lastName":"Turing"}`)
	if r := e.call("GET", "/v1/applicants/"+other["id"].(string)+"/erasure", e.A.SandboxKey, ""); r.status != 404 {
		t.Errorf("receipt of a live applicant: %d", r.status)
	}

	// Live, with a decided request: deferred.
	live := e.mustCreate(e.A.LiveKey, `{"firstName":"Grace","lastName":"Hopper"}`)
	liveID := live["id"].(string)
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		now := tx.Now()
		r := &kyc.KYCRequest{OrganizationID: e.A.ID, Environment: kyc.Live, ApplicantID: liveID, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: now}
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		r.Status, r.Decision, r.DecidedAt = kyc.KYCApproved, kyc.DecisionApproved, &now
		return tx.SaveKYCRequest(r)
	}); err != nil {
		t.Fatal(err)
	}
	r = e.call("DELETE", "/v1/applicants/"+liveID, e.A.LiveKey, "")
	if r.status != http.StatusAccepted || r.json(t)["erasureScheduledAt"] == nil {
		t.Fatalf("erase a decided live applicant: %d %s", r.status, r.body)
	}
	if got := e.call("GET", "/v1/applicants/"+liveID, e.A.LiveKey, "").json(t); got["erasureScheduledAt"] != r.json(t)["erasureScheduledAt"] || got["firstName"] != "Grace" {
		t.Errorf("scheduled applicant: %v", got)
	}
}

// TestApplicantExport: the archive holds export.json with the applicant
// and its request, and the captured image byte for byte; the export is
// audited; another organization gets 404.
func TestApplicantExport(t *testing.T) {
	e := newAPIEnv(t)
	a := e.mustCreate(e.A.SandboxKey, ada)
	id := a["id"].(string)
	img := []byte("\xff\xd8\xff\xe0 not really a jpeg, but bytes to compare")
	var capID, reqID string
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		r := &kyc.KYCRequest{OrganizationID: e.A.ID, Environment: kyc.Sandbox, ApplicantID: id, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: tx.Now()}
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		side := "front"
		c := &kyc.Capture{RequestID: r.ID, Kind: "document", Side: &side, ContentType: "image/jpeg", Width: 1, Height: 1,
			SHA256: "x", SourceSHA256: "x", Method: "upload", UserAgent: "test", IP: "192.0.2.1"}
		reqID = r.ID
		if err := tx.SaveCapture(c, img); err != nil {
			return err
		}
		capID = c.ID
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The case's tags and comments are data held about the person too.
	e.call("POST", "/v1/kyc-requests/"+reqID+"/tags", e.A.SandboxKey, `{"tag":"vip"}`)
	e.call("POST", "/v1/kyc-requests/"+reqID+"/comments", e.A.SandboxKey, `{"body":"Called her twice."}`)
	r := e.call("GET", "/v1/applicants/"+id+"/export", e.A.SandboxKey, "")
	if r.status != 200 || r.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("export: %d %s", r.status, r.header.Get("Content-Type"))
	}
	zr, err := zip.NewReader(bytes.NewReader(r.body), int64(len(r.body)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	if !bytes.Equal(files["requests/"+reqID+"/"+capID+".jpg"], img) {
		t.Errorf("image missing or changed; files: %v", keys(files))
	}
	var doc struct {
		Object    string         `json:"object"`
		Applicant map[string]any `json:"applicant"`
		Requests  []struct {
			Captures []struct{ File, IP string } `json:"captures"`
			Tags     []string                    `json:"tags"`
			Comments []struct{ Body string }     `json:"comments"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(files["export.json"], &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Object != "applicant_export" || doc.Applicant["email"] != "ada@example.com" || len(doc.Requests) != 1 ||
		len(doc.Requests[0].Captures) != 1 || doc.Requests[0].Captures[0].IP != "192.0.2.1" ||
		len(doc.Requests[0].Tags) != 1 || len(doc.Requests[0].Comments) != 1 || doc.Requests[0].Comments[0].Body != "Called her twice." {
		t.Errorf("export.json: %s", files["export.json"])
	}
	audit, err := e.store.FindAudit(t.Context(), id)
	if err != nil || len(audit) == 0 || audit[len(audit)-1].Action != "applicant.exported" {
		t.Errorf("audit: %v %+v", err, audit)
	}
	if r := e.call("GET", "/v1/applicants/"+id+"/export", e.B.SandboxKey, ""); r.status != 404 {
		t.Errorf("export by another organization: %d", r.status)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
