package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/store"
	"kycd/verification"
)

// kycEnv is an apiEnv whose KYC service the test can drive as the portal
// and the job runner would.
type kycEnv struct {
	*apiEnv
	svc    *verification.Service
	runner *jobs.Runner
}

func newKYCEnv(t *testing.T) *kycEnv {
	e := newAPIEnv(t)
	svc := verification.New(e.store, nil, "https://verify.example.com/portal", nil)
	e.opts.KYC, e.opts.PortalURL = svc, "https://verify.example.com/portal"
	e.start()
	runner := jobs.New(jobs.Options{Store: e.store, Now: e.clock.Now})
	svc.RegisterJobs(runner)
	return &kycEnv{apiEnv: e, svc: svc, runner: runner}
}

// runJobs runs every due job of the KYC kinds (other kinds stay queued).
func (e *kycEnv) runJobs() {
	e.t.Helper()
	for i := 0; i < 10; i++ {
		n, err := e.runner.RunOnce(e.t.Context())
		if err != nil {
			e.t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

func (e *kycEnv) create(key, body string) map[string]any {
	e.t.Helper()
	r := e.call("POST", "/v1/kyc-requests", key, body)
	if r.status != http.StatusCreated {
		e.t.Fatalf("create kyc request: %d %s", r.status, r.body)
	}
	return r.json(e.t)
}

func token(t *testing.T, c map[string]any) string {
	t.Helper()
	u := c["portalUrl"].(string)
	if !strings.HasPrefix(u, "https://verify.example.com/portal/") {
		t.Fatalf("portalUrl %s", u)
	}
	return strings.TrimPrefix(u, "https://verify.example.com/portal/")
}

// pngBytes is a small valid image for captures stored through the
// service; seed makes each capture a different image (the engine flags
// one image used twice).
func pngBytes(t *testing.T, seed ...uint8) []byte {
	img := image.NewGray(image.Rect(0, 0, 300, 200))
	for _, s := range seed {
		img.Pix[int(s)] = s + 1
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// submit goes through the portal's use cases: captures and submission.
func (e *kycEnv) submit(tok string, docType string, withSelfie bool) {
	e.t.Helper()
	n := uint8(0)
	add := func(kind string, side *string) {
		n++
		img := pngBytes(e.t, n)
		sum := sha256.Sum256(img)
		c := &kyc.Capture{Kind: kind, Side: side, ContentType: "image/png", Width: 300, Height: 200, SHA256: hex.EncodeToString(sum[:]), SourceSHA256: hex.EncodeToString(sum[:]),
			Method: "camera", UserAgent: "test", IP: "192.0.2.1"}
		if kind == "document" {
			c.DocumentType = &docType
		}
		if err := e.store.InTx(e.t.Context(), func(tx *store.Tx) error { _, err := e.svc.AddCapture(tx, tok, c, img); return err }); err != nil {
			e.t.Fatal(err)
		}
	}
	front, back := "front", "back"
	add("document", &front)
	if kyc.DocumentTypes[docType] {
		add("document", &back)
	}
	if withSelfie {
		add("selfie", nil)
	}
	err := e.store.InTx(e.t.Context(), func(tx *store.Tx) error {
		r, err := tx.FindKYCRequestByToken(verificationTokenHash(tok))
		if err != nil {
			return err
		}
		if r.DocumentData == nil {
			doc := &kyc.DocumentData{DocumentType: docType, IssuingCountry: "GB", DocumentNumber: "TEST" + docType[:2], ExpiryDate: "2035-01-01"}
			if _, err := e.svc.SetDocumentData(tx, tok, doc); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.InTx(e.t.Context(), func(tx *store.Tx) error { _, err := e.svc.Submit(tx, tok); return err }); err != nil {
		e.t.Fatal(err)
	}
}

func (e *kycEnv) timeline(key, id string) []string {
	e.t.Helper()
	var out []string
	for _, ev := range e.call("GET", "/v1/kyc-requests/"+id+"/events", key, "").json(e.t)["data"].([]any) {
		m := ev.(map[string]any)
		out = append(out, m["type"].(string)+":"+m["toStatus"].(string))
	}
	return out
}

const adaKYC = `{"applicant":{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com","dob":"1990-12-10","country":"GB"},"redirectUrl":"https://example.com/done"}`

func TestKYCCreateAndFullFlow(t *testing.T) {
	e := newKYCEnv(t)
	c := e.create(e.A.LiveKey, adaKYC)
	var keys []string
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "applicantId,applicantPublicId,createdAt,decision,environment,id,portalExpiresAt,portalUrl,publicId,status" {
		t.Errorf("creation fields: %v", keys)
	}
	if c["status"] != "link_generated" || c["decision"] != "pending" || c["portalExpiresAt"] != "2026-01-09T03:04:05.000Z" {
		t.Errorf("created: %v", c)
	}
	id := c["id"].(string)
	tok := token(t, c)
	if len(tok) < 22 {
		t.Errorf("token %q is too short to carry 128 bits", tok)
	}
	// The link was e-mailed.
	emails, err := e.store.FindEmails(t.Context())
	if err != nil || len(emails) != 1 || emails[0].To != "ada@example.com" || !strings.Contains(emails[0].Body, c["portalUrl"].(string)) {
		t.Fatalf("e-mail: %+v %v", emails, err)
	}

	e.submit(tok, "id_card", true)
	e.runJobs()
	got := e.call("GET", "/v1/kyc-requests/"+id, e.A.LiveKey, "").json(t)
	if got["status"] != "awaiting_review" || got["automationDecision"] != "review" || got["decision"] != "pending" ||
		got["processingResult"].(map[string]any)["automatedChecks"] != false || got["submittedAt"] == nil {
		t.Fatalf("after processing: %v", got)
	}
	want := "svc.kyc.request.created:link_generated,svc.kyc.portal_link_ready:link_generated,svc.kyc.portal_link_opened:link_generated," +
		"svc.kyc.request.submitted:submitted,svc.kyc.request.processing:processing,svc.kyc.request.awaiting_review:awaiting_review"
	if tl := strings.Join(e.timeline(e.A.LiveKey, id), ","); tl != want {
		t.Errorf("timeline\n got %s\nwant %s", tl, want)
	}
	// Manual decision; decided live requests never change.
	if r := e.call("POST", "/v1/kyc-requests/"+id+"/approve", e.A.LiveKey, `{}`); r.status != 400 || r.errCode(t) != "VALIDATION_ERROR" {
		t.Errorf("approve without note: %d %s", r.status, r.body)
	}
	r := e.call("POST", "/v1/kyc-requests/"+id+"/approve", e.A.LiveKey, `{"note":"Checked by hand.","reviewer":"Jane Doe"}`)
	if d := r.json(t); r.status != 200 || d["status"] != "approved" || d["decision"] != "approved" || d["decisionReason"] != "Checked by hand." || d["decidedAt"] == nil {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	for _, action := range []string{"approve", "reject", "cancel", "resend-link"} {
		body := `{"note":"again"}`
		if action == "cancel" || action == "resend-link" {
			body = ""
		}
		r := e.call("POST", "/v1/kyc-requests/"+id+"/"+action, e.A.LiveKey, body)
		if r.status != 400 || r.errCode(t) != "INVALID_TRANSITION" || !strings.Contains(string(r.body), "approved") {
			t.Errorf("%s after approval: %d %s", action, r.status, r.body)
		}
	}
	// The JSON report: schema-checked by the harness; its hash verifies.
	rep := e.call("GET", "/v1/kyc-requests/"+id+"/report.json", e.A.LiveKey, "")
	var doc map[string]any
	if err := json.Unmarshal(rep.body, &doc); err != nil || rep.status != 200 {
		t.Fatalf("report.json: %d %v", rep.status, err)
	}
	sum := doc["contentSha256"].(string)
	if !verifyReportHash(t, rep.body, sum) {
		t.Errorf("contentSha256 %s does not verify", sum)
	}
	if notes := doc["reviewerNotes"].([]any); len(notes) != 1 || notes[0].(map[string]any)["note"] != "Checked by hand." {
		t.Errorf("reviewer notes: %v", doc["reviewerNotes"])
	}
	if len(doc["captures"].([]any)) != 3 || len(doc["timeline"].([]any)) != 7 {
		t.Errorf("report captures/timeline: %d/%d", len(doc["captures"].([]any)), len(doc["timeline"].([]any)))
	}
	// Seven changes, and the report's download above as an access row.
	rows, err := e.store.FindAudit(t.Context(), id)
	var audit []store.AuditEntry
	for _, r := range rows {
		if store.AuditCategory(r.Action) == store.AuditChange {
			audit = append(audit, r)
		}
	}
	if len(rows) != 8 || store.AuditCategory(rows[7].Action) != store.AuditAccess {
		t.Errorf("audit: %v, want the report's access last", actions(rows))
	}
	if err != nil || len(audit) != 7 || *audit[6].ToStatus != "approved" || *audit[6].ActorID != "Jane Doe (key_"+strings.Split(strings.TrimPrefix(e.A.LiveKey, "svc_live_"), ".")[0]+")" {
		t.Errorf("audit: %d rows %v", len(audit), err)
	}
}

func TestKYCCreateValidation(t *testing.T) {
	e := newKYCEnv(t)
	archived := e.mustCreate(e.A.SandboxKey, `{"firstName":"Old","lastName":"Customer","externalRef":"dup"}`)
	e.call("POST", "/v1/applicants/"+archived["id"].(string)+"/archive", e.A.SandboxKey, "")
	for _, tt := range []struct {
		name, body string
		status     int
		fields     string
	}{
		{"neither", `{}`, 400, "applicant,applicantId"},
		{"both", `{"applicantId":"app_x","applicant":{"firstName":"A","lastName":"B"}}`, 400, "applicant,applicantId"},
		{"inline errors are prefixed", `{"applicant":{"firstName":"","email":"x","nick":1}}`, 400, "applicant.email,applicant.firstName,applicant.lastName,applicant.nick"},
		{"bad fields", `{"applicantId":"app_x","workflowType":"express","callbackUrl":"/relative","redirectUrl":"ftp://x","portalTtlHours":721,"metadata":{"a":{"b":1}}}`, 400,
			"callbackUrl,metadata.a,portalTtlHours,redirectUrl,workflowType"},
		{"applicant not found", `{"applicantId":"app_01JCXW6Y0Q4H3T2V5N7M8K9P0R"}`, 404, ""},
		{"archived", `{"applicantId":"` + archived["publicId"].(string) + `"}`, 422, "applicantId"},
		{"inline duplicate externalRef", `{"applicant":{"firstName":"A","lastName":"B","externalRef":"dup"}}`, 409, "applicant.externalRef"},
		{"environment", `{"applicantId":"` + archived["id"].(string) + `","environment":"live"}`, 403, "environment"},
	} {
		r := e.call("POST", "/v1/kyc-requests", e.A.SandboxKey, tt.body)
		if r.status != tt.status {
			t.Errorf("%s: %d %s", tt.name, r.status, r.body)
			continue
		}
		var fields []string
		for _, d := range r.json(t)["error"].(map[string]any)["details"].([]any) {
			fields = append(fields, d.(map[string]any)["field"].(string))
		}
		if strings.Join(fields, ",") != tt.fields {
			t.Errorf("%s: fields %v, want %s", tt.name, fields, tt.fields)
		}
	}
	// Live wants https.
	r := e.call("POST", "/v1/kyc-requests", e.A.LiveKey, `{"applicant":{"firstName":"A","lastName":"B"},"redirectUrl":"http://example.com"}`)
	if r.status != 400 || !strings.Contains(string(r.body), "https") {
		t.Errorf("http redirect in live: %d %s", r.status, r.body)
	}
	if n := e.call("GET", "/v1/kyc-requests", e.A.SandboxKey, "").json(t)["pagination"].(map[string]any)["totalItems"]; n != float64(0) {
		t.Errorf("refused requests stored %v requests", n)
	}
}

func TestKYCCancelResendExpire(t *testing.T) {
	e := newKYCEnv(t)
	c := e.create(e.A.SandboxKey, `{"applicant":{"firstName":"A","lastName":"B"},"portalTtlHours":2}`)
	id, tok := c["id"].(string), token(t, c)
	if c["portalExpiresAt"] != "2026-01-02T05:04:05.000Z" {
		t.Errorf("portalTtlHours: %v", c["portalExpiresAt"])
	}
	// resend-link: a new token; the old one stops working.
	r := e.call("POST", "/v1/kyc-requests/"+id+"/resend-link", e.A.SandboxKey, `{"portalTtlHours":1}`)
	n := r.json(t)
	if r.status != 200 || token(t, n) == tok || n["portalExpiresAt"] != "2026-01-02T04:04:05.000Z" {
		t.Fatalf("resend: %d %s", r.status, r.body)
	}
	if _, _, err := e.svc.PortalState(t.Context(), tok); err == nil {
		t.Error("the old link still works")
	}
	tok = token(t, n)
	// An hour later the (new) link expires through the job.
	e.clock.Advance(61 * time.Minute)
	e.runJobs()
	if s := e.call("GET", "/v1/kyc-requests/"+id, e.A.SandboxKey, "").json(t); s["status"] != "expired" || s["decision"] != "none" {
		t.Fatalf("after expiry: %v", s)
	}
	if _, st, _ := e.svc.PortalState(t.Context(), tok); st != verification.LinkExpired {
		t.Errorf("link state %s", st)
	}
	// Cancel is for live links only; resend reopens an expired request.
	if r := e.call("POST", "/v1/kyc-requests/"+id+"/cancel", e.A.SandboxKey, ""); r.status != 400 || r.errCode(t) != "INVALID_TRANSITION" {
		t.Errorf("cancel expired: %d %s", r.status, r.body)
	}
	r = e.call("POST", "/v1/kyc-requests/"+id+"/resend-link", e.A.SandboxKey, "")
	if r.status != 200 || r.json(t)["status"] != "link_generated" {
		t.Fatalf("reopen: %d %s", r.status, r.body)
	}
	// The first expiry job's successor is due a week later; before then, nothing.
	e.clock.Advance(24 * time.Hour)
	e.runJobs()
	r = e.call("POST", "/v1/kyc-requests/"+id+"/cancel", e.A.SandboxKey, `{"reason":"customer left"}`)
	if s := r.json(t); r.status != 200 || s["status"] != "cancelled" || s["decision"] != "none" {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	for _, a := range []string{"cancel", "resend-link"} {
		if r := e.call("POST", "/v1/kyc-requests/"+id+"/"+a, e.A.SandboxKey, ""); r.status != 400 || r.errCode(t) != "INVALID_TRANSITION" {
			t.Errorf("%s cancelled: %d", a, r.status)
		}
	}
	want := "svc.kyc.request.created:link_generated,svc.kyc.portal_link_ready:link_generated,svc.kyc.portal_link_ready:link_generated," +
		"svc.kyc.request.expired:expired,svc.kyc.portal_link_ready:link_generated,svc.kyc.portal_link_ready:link_generated,svc.kyc.request.cancelled:cancelled"
	if tl := strings.Join(e.timeline(e.A.SandboxKey, id), ","); tl != want {
		t.Errorf("timeline\n got %s\nwant %s", tl, want)
	}
	// Sandbox transitions are audited as live ones are (issue 23 item 13).
	if a, _ := e.store.FindAudit(t.Context(), id); len(a) != 7 {
		t.Errorf("sandbox audit rows: %v", actions(a))
	}
	// Manual decisions only from awaiting_review.
	c2 := e.create(e.A.SandboxKey, `{"applicant":{"firstName":"C","lastName":"D"}}`)
	if r := e.call("POST", "/v1/kyc-requests/"+c2["id"].(string)+"/reject", e.A.SandboxKey, `{"note":"x"}`); r.status != 400 ||
		!strings.Contains(r.json(t)["error"].(map[string]any)["message"].(string), "link_generated") {
		t.Errorf("reject before review: %d %s", r.status, r.body)
	}
}

func TestKYCListDocumentsAndIsolation(t *testing.T) {
	e := newKYCEnv(t)
	c := e.create(e.A.SandboxKey, adaKYC)
	e.create(e.A.SandboxKey, `{"applicant":{"firstName":"B","lastName":"C"},"workflowType":"document_only"}`)
	id := c["id"].(string)
	e.submit(token(t, c), "passport", true)
	for q, want := range map[string]float64{"": 2, "?status=submitted": 1, "?status=link_generated": 1, "?status=approved": 0} {
		if r := e.call("GET", "/v1/kyc-requests"+q, e.A.SandboxKey, ""); r.json(t)["pagination"].(map[string]any)["totalItems"] != want {
			t.Errorf("list %s: %s", q, r.body)
		}
	}
	if r := e.call("GET", "/v1/kyc-requests?status=done", e.A.SandboxKey, ""); r.status != 400 {
		t.Errorf("bad status filter: %d", r.status)
	}
	docs := e.call("GET", "/v1/kyc-requests/"+id+"/documents", e.A.SandboxKey, "").json(t)["data"].([]any)
	selfies := e.call("GET", "/v1/kyc-requests/"+id+"/selfies", e.A.SandboxKey, "").json(t)["data"].([]any)
	if len(docs) != 1 || len(selfies) != 1 {
		t.Fatalf("documents %d, selfies %d", len(docs), len(selfies))
	}
	url := docs[0].(map[string]any)["downloadUrl"].(string)
	path := url[strings.Index(url, "/v1/files/"):]
	// The pre-signed URL works without a key, for 10 minutes, untampered.
	r := e.call("GET", path, "", "")
	if r.status != 200 || r.header.Get("Content-Type") != "image/png" || !bytes.Equal(r.body, pngBytes(t, 1)) {
		t.Fatalf("download: %d %s", r.status, r.header)
	}
	// The last signature character changed (to "1" when it is "0": replacing
	// a "0" with "0" changed nothing, so this case failed 1 time in 16).
	last := "0"
	if strings.HasSuffix(path, "0") {
		last = "1"
	}
	for _, bad := range []string{strings.Replace(path, "signature=", "signature=0", 1), path[:len(path)-1] + last,
		strings.Replace(path, "expires=", "expires=9", 1), strings.Replace(path, "/cap_", "/cap_0", 1)} {
		if r := e.call("GET", bad, "", ""); r.status != 403 || !strings.Contains(string(r.body), "invalid_signature") {
			t.Errorf("tampered %s: %d %s", bad, r.status, r.body)
		}
	}
	e.clock.Advance(10*time.Minute + time.Second)
	if r := e.call("GET", path, "", ""); r.status != 403 || !strings.Contains(string(r.body), "expired_signature") {
		t.Errorf("expired URL: %d %s", r.status, r.body)
	}
	sc := e.call("GET", "/v1/kyc-requests/"+id+"/screenings", e.A.SandboxKey, "").json(t)
	if sc["screened"] != false || len(sc["data"].([]any)) != 0 {
		t.Errorf("screenings before processing: %v", sc)
	}
	// Every KYC endpoint: other organization 404, other environment 403.
	for _, p := range []string{"", "/events", "/documents", "/selfies", "/screenings", "/report.json"} {
		if r := e.call("GET", "/v1/kyc-requests/"+id+p, e.B.SandboxKey, ""); r.status != 404 {
			t.Errorf("GET %s from another organization: %d", p, r.status)
		}
		if r := e.call("GET", "/v1/kyc-requests/"+c["publicId"].(string)+p, e.A.LiveKey, ""); r.status != 403 {
			t.Errorf("GET %s from the other environment: %d", p, r.status)
		}
	}
	for _, p := range []string{"/cancel", "/resend-link", "/approve", "/reject"} {
		body := `{"note":"n"}`
		if r := e.call("POST", "/v1/kyc-requests/"+id+p, e.B.SandboxKey, body); r.status != 404 && r.status != 400 {
			t.Errorf("POST %s from another organization: %d", p, r.status)
		}
		if r := e.call("POST", "/v1/kyc-requests/"+id+p, e.A.LiveKey, body); r.status != 403 && r.status != 400 {
			t.Errorf("POST %s from the other environment: %d", p, r.status)
		}
	}
	if n := e.call("GET", "/v1/kyc-requests", e.B.SandboxKey, "").json(t)["pagination"].(map[string]any)["totalItems"]; n != float64(0) {
		t.Errorf("organization B sees %v requests", n)
	}
}

// verifyReportHash recomputes contentSha256: the SHA-256 of the report as
// served with that field set to "".
func verifyReportHash(t *testing.T, body []byte, sum string) bool {
	t.Helper()
	blank := bytes.Replace(body, []byte(`"contentSha256":"`+sum+`"`), []byte(`"contentSha256":""`), 1)
	got := sha256.Sum256(bytes.TrimSpace(blank))
	return hex.EncodeToString(got[:]) == sum
}

// TestFourEyesReview: with the setting on, a live decision needs a
// second reviewer, who agrees and decides with a different API key: the
// name typed in "reviewer" proves nothing (issue #9: one key and two typed
// names satisfied it).
func TestFourEyesReview(t *testing.T) {
	e := newKYCEnv(t)
	var secondKey, secondID string
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		k, token, err := tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: e.A.ID, Environment: kyc.Live, Tier: kyc.TierPro, Name: "second reviewer"})
		secondKey, secondID = token, "key_"+k.ID
		if err != nil {
			return err
		}
		return tx.SetFourEyes(e.A.ID, true)
	}); err != nil {
		t.Fatal(err)
	}
	c := e.create(e.A.LiveKey, `{"applicant":{"firstName":"A","lastName":"B"}}`)
	id := c["id"].(string)
	e.submit(token(t, c), "passport", true)
	e.runJobs()
	path := "/v1/kyc-requests/" + id
	r := e.call("POST", path+"/reject", e.A.LiveKey, `{"note":"Looks forged.","reasonCode":"DOCUMENT_FORGED","reviewer":"Jane"}`)
	first := r.json(t)
	if r.status != 200 || first["status"] != "awaiting_review" || first["pendingReview"].(map[string]any)["reviewer"] == nil {
		t.Fatalf("first review: %d %s", r.status, r.body)
	}
	if p := first["pendingReview"].(map[string]any); p["actorType"] != "api_key" || p["actorId"] != "key_"+e.A.LiveID {
		t.Errorf("pendingReview does not record the key that decided: %v", p)
	}
	for _, tt := range []struct{ why, action, key, body, message string }{
		{"same key, same name", "/reject", e.A.LiveKey, `{"note":"Sure.","reviewer":"Jane"}`, "different API key"},
		{"same key, another typed name", "/reject", e.A.LiveKey, `{"note":"Agreed.","reviewer":"Bob"}`, "different API key"},
		{"same key, no name", "/reject", e.A.LiveKey, `{"note":"Agreed."}`, "different API key"},
		{"disagreement", "/approve", secondKey, `{"note":"Fine to me.","reviewer":"Bob"}`, "both reviewers must agree"},
	} {
		r := e.call("POST", path+tt.action, tt.key, tt.body)
		if r.status != 409 || r.errCode(t) != "CONFLICT" || !strings.Contains(string(r.body), tt.message) {
			t.Errorf("%s: %d %s, want 409 saying %q", tt.why, r.status, r.body, tt.message)
		}
	}
	r = e.call("POST", path+"/reject", secondKey, `{"note":"Agreed.","reviewer":"Bob"}`)
	if d := r.json(t); r.status != 200 || d["status"] != "rejected" || d["pendingReview"] != nil || d["reviewReasonCode"] != "DOCUMENT_FORGED" ||
		!strings.Contains(d["decisionReason"].(string), "confirmed by Bob") || !strings.Contains(d["decisionReason"].(string), secondID) {
		t.Fatalf("second review: %d %s", r.status, r.body)
	}
	// Sandbox ignores the setting.
	c = e.create(e.A.SandboxKey, `{"applicant":{"firstName":"A","lastName":"B"}}`)
	e.submit(token(t, c), "passport", true)
	e.runJobs()
	if r := e.call("POST", "/v1/kyc-requests/"+c["id"].(string)+"/approve", e.A.SandboxKey, `{"note":"ok"}`); r.json(t)["status"] != "approved" {
		t.Errorf("sandbox four-eyes: %s", r.body)
	}
}

// verificationTokenHash is how the store keys portal tokens (SHA-256).
func verificationTokenHash(tok string) []byte {
	h := sha256.Sum256([]byte(tok))
	return h[:]
}
