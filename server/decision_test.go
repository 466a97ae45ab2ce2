package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"kycd/aml"
	"kycd/capture"
	"kycd/decision"
	"kycd/internal/realdata"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/liveness"
	"kycd/mrz"
	"kycd/screening"
	"kycd/server/contracttest"
	"kycd/store"
	"kycd/verification"
	"kycd/webhook"
)

// decisionEnv runs the automated engine behind the API, with a webhook
// receiver that records every delivery's event type.
type decisionEnv struct {
	*kycEnv
	mu     sync.Mutex
	events map[string][]string // resourceId → event types received
}

func newDecisionEnv(t *testing.T) *decisionEnv {
	e := newAPIEnv(t, allowPrivateWebhooks)
	sc, err := screening.NewScreener()
	if err != nil {
		t.Fatal(err)
	}
	amlSvc := aml.New(e.store, sc, nil)
	engine := &decision.Auto{Store: e.store, Screen: amlSvc.ScreenPerson, Policy: decision.StorePolicy(e.store), Now: e.clock.Now}
	svc := verification.New(e.store, engine, "https://verify.example.com/portal", nil)
	e.opts.KYC, e.opts.AML, e.opts.PortalURL = svc, amlSvc, "https://verify.example.com/portal"
	e.start()
	d := &decisionEnv{events: map[string][]string{}}
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("receiver: %v", err)
		}
		// Every delivered body must be what the description promises
		// (issue 23 item 21), not only every API response.
		if err := contracttest.CheckEvent(r.Header, raw); err != nil {
			t.Errorf("receiver: %v", err)
		}
		var body struct{ ResourceID, EventType string }
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("receiver: %v", err)
		}
		d.mu.Lock()
		d.events[body.ResourceID] = append(d.events[body.ResourceID], body.EventType)
		d.mu.Unlock()
	}))
	t.Cleanup(rc.Close)
	runner := jobs.New(jobs.Options{Store: e.store, Now: e.clock.Now})
	svc.RegisterJobs(runner)
	(&webhook.Dispatcher{Store: e.store, Box: e.opts.Secrets, Sender: webhook.NewSender(true), Now: e.clock.Now}).Register(runner)
	d.kycEnv = &kycEnv{apiEnv: e, svc: svc, runner: runner}
	// Sandbox endpoints may be plain http (live ones must be https).
	if r := e.call("POST", "/v1/webhook-endpoints", e.A.SandboxKey, `{"url":"`+rc.URL+`"}`); r.status != 201 {
		t.Fatalf("endpoint: %d %s", r.status, r.body)
	}
	return d
}

// TestSandboxDecisionPaths: each sandbox trigger takes a request through
// the engine to its outcome over the API, with the webhooks delivered.
func TestSandboxDecisionPaths(t *testing.T) {
	e := newDecisionEnv(t)
	for _, tt := range []struct {
		lastName, status, decision, event string
	}{
		{"Approve", "approved", "approved", "svc.kyc.request.approved"},
		{"reject", "rejected", "rejected", "svc.kyc.request.rejected"},
		{"Review", "awaiting_review", "pending", "svc.kyc.request.awaiting_review"},
		{"Fail", "failed", "none", "svc.kyc.request.failed"},
		{"Lovelace", "approved", "approved", "svc.kyc.request.approved"}, // no trigger: approve
	} {
		c := e.create(e.A.SandboxKey, `{"applicant":{"firstName":"Ada","lastName":"`+tt.lastName+`","dob":"1990-12-10","country":"GB"}}`)
		id := c["id"].(string)
		e.submit(token(t, c), "passport", true)
		e.runJobs()
		rec := e.call("GET", "/v1/kyc-requests/"+id, e.A.SandboxKey, "").json(t)
		if rec["status"] != tt.status || rec["decision"] != tt.decision {
			t.Errorf("%s: %v/%v (%v)", tt.lastName, rec["status"], rec["decision"], rec["decisionReason"])
			continue
		}
		// Deliveries run in parallel, so they may arrive in any order.
		e.mu.Lock()
		got := append([]string(nil), e.events[id]...)
		e.mu.Unlock()
		sort.Strings(got)
		want := []string{"svc.kyc.request.created", "svc.kyc.portal_link_ready", "svc.kyc.request.submitted", "svc.kyc.request.processing", tt.event}
		sort.Strings(want)
		if events := strings.Join(got, ","); events != strings.Join(want, ",") {
			t.Errorf("%s: webhooks %s", tt.lastName, events)
		}
		if tt.status == "failed" {
			continue
		}
		pr := rec["processingResult"].(map[string]any)
		if pr["sandbox"] != true || pr["engine"] != "auto" || pr["engineVersion"] != decision.EngineVersion ||
			len(pr["signals"].([]any)) < 7 || !strings.HasPrefix(rec["decisionReason"].(string), "Sandbox test decision") {
			t.Errorf("%s: processing result %v", tt.lastName, pr)
		}
		sc := e.call("GET", "/v1/kyc-requests/"+id+"/screenings", e.A.SandboxKey, "").json(t)
		if sc["screened"] != true || len(sc["data"].([]any)) != 3 {
			t.Errorf("%s: screenings %v", tt.lastName, sc)
		}
	}
}

// TestLiveDecisionPaths: live follows the policy, not triggers.
func TestLiveDecisionPaths(t *testing.T) {
	e := newDecisionEnv(t)
	// No list is loaded: live screening fails closed, which the policy
	// sends to review, even for the last name "Approve".
	c := e.create(e.A.LiveKey, `{"applicant":{"firstName":"Ada","lastName":"Approve","dob":"1990-12-10","country":"GB"}}`)
	id := c["id"].(string)
	e.submit(token(t, c), "passport", true)
	e.runJobs()
	got := e.call("GET", "/v1/kyc-requests/"+id, e.A.LiveKey, "").json(t)
	pr := got["processingResult"].(map[string]any)
	if got["status"] != "awaiting_review" || pr["sandbox"] != nil || !hasReason(pr, decision.CodeScreeningFailed) {
		t.Fatalf("live without lists: %v %v", got["status"], pr["reasons"])
	}
	// An under-age applicant with an expired document, both only as
	// typed (a driving licence has no MRZ; the age is the record's): the
	// server read neither, so it does not reject; a reviewer must check
	// (issue 23 item 12: it rejected on a date only the applicant typed).
	c = e.create(e.A.LiveKey, `{"applicant":{"firstName":"Kid","lastName":"Young","dob":"2015-01-01","country":"GB"}}`)
	id = c["id"].(string)
	tok := token(t, c)
	doc := &kyc.DocumentData{DocumentType: "driving_licence", IssuingCountry: "GB", DocumentNumber: "YOUNG9", ExpiryDate: "2025-12-31"}
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error { _, err := e.svc.SetDocumentData(tx, tok, doc); return err }); err != nil {
		t.Fatal(err)
	}
	e.submit(tok, "driving_licence", true)
	e.runJobs()
	got = e.call("GET", "/v1/kyc-requests/"+id, e.A.LiveKey, "").json(t)
	pr = got["processingResult"].(map[string]any)
	if got["status"] != "awaiting_review" || got["automationDecision"] != "review" || !hasReason(pr, decision.CodeUnderAge) || !hasReason(pr, decision.CodeDocumentExpired) {
		t.Fatalf("under age, expired, as typed: %v %v", got["status"], pr["reasons"])
	}
	for _, r := range pr["reasons"].([]any) {
		m := r.(map[string]any)
		want := map[string]string{decision.CodeDocumentExpired: "typed", decision.CodeUnderAge: "applicant_record"}[m["code"].(string)]
		if want != "" && (m["action"] != "review" || m["unverified"] != want || !strings.Contains(m["message"].(string), "a reviewer must check it")) {
			t.Errorf("reason %v: want review, unverified %s, and a message that says so", m, want)
		}
	}
	if got["decisionReason"] == nil || got["riskScore"] == nil {
		t.Errorf("decision fields: %v", got)
	}
}

func hasReason(pr map[string]any, code string) bool {
	for _, r := range pr["reasons"].([]any) {
		if r.(map[string]any)["code"] == code {
			return true
		}
	}
	return false
}

// mrzTD3 builds a valid passport MRZ (every check digit right).
func mrzTD3(surname, given, number, nationality, dob, sex, expiry string) string {
	pad := func(s string, n int) string {
		for len(s) < n {
			s += "<"
		}
		return s[:n]
	}
	l1 := pad("P<UTO"+surname+"<<"+strings.ReplaceAll(given, " ", "<"), 44)
	num := pad(number, 9)
	part := num + string(mrz.CheckDigit(num)) + nationality + dob + string(mrz.CheckDigit(dob)) + sex + expiry + string(mrz.CheckDigit(expiry))
	personal := pad("", 14)
	part += personal + string(mrz.CheckDigit(personal))
	composite := num + string(mrz.CheckDigit(num)) + dob + string(mrz.CheckDigit(dob)) + expiry + string(mrz.CheckDigit(expiry)) + personal + string(mrz.CheckDigit(personal))
	return l1 + "\n" + part + string(mrz.CheckDigit(composite))
}

// liveEngineEnv is newDecisionEnv with every list loaded (names unrelated
// to the applicants) and the engine using the real image signals and
// face models.
func liveEngineEnv(t *testing.T) *decisionEnv {
	e := newDecisionEnv(t)
	amlSvc := e.opts.AML
	for kind, body := range map[screening.Kind]string{screening.Sanctions: "name,reference\nIvan Sidorov,S-1\n",
		screening.PEP: "name,reference\nPepe Politico,P-1\n", screening.AdverseMedia: "name,reference\nMedia Person,M-1\n"} {
		importCSV(t, e.apiEnv, "in-house-"+string(kind), kind, body)
	}
	if err := amlSvc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.svc = verification.New(e.store, &decision.Auto{Store: e.store, Screen: amlSvc.ScreenPerson, Policy: decision.StorePolicy(e.store),
		Now: e.clock.Now, ImageSignals: decision.ImageSignals}, "https://verify.example.com/portal", nil)
	e.opts.KYC = e.svc
	e.start()
	e.runner = jobs.New(jobs.Options{Store: e.store, Now: e.clock.Now})
	e.svc.RegisterJobs(e.runner)
	return e
}

// submitLive creates a live request for applicant (JSON), stores the
// shared photos docFile (a passport's photo page) and selfieFile as
// camera captures, confirms doc, submits and runs the processing job. It
// returns the request as the API shows it.
func (e *decisionEnv) submitLive(t *testing.T, applicant, docFile, selfieFile string, doc *kyc.DocumentData) map[string]any {
	t.Helper()
	c := e.create(e.A.LiveKey, `{"applicant":`+applicant+`}`)
	id, tok := c["id"].(string), token(t, c)
	front := "front"
	passport := "passport"
	for _, p := range []struct {
		file string
		c    kyc.Capture
	}{
		{docFile, kyc.Capture{Kind: "document", Side: &front, DocumentType: &passport}},
		{selfieFile, kyc.Capture{Kind: "selfie"}},
	} {
		f, err := os.Open(realdata.Path(t, p.file))
		if err != nil {
			t.Fatal(err)
		}
		img, err := capture.Process(f, capture.Limits{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		c := p.c
		c.ContentType, c.Width, c.Height, c.SHA256, c.SourceSHA256 = img.ContentType, img.Width, img.Height, img.SHA256, img.SourceSHA256
		c.Method, c.UserAgent, c.IP, c.Meta = kyc.MethodUpload, "test", "192.0.2.7", map[string]any{"clientMethod": "camera"}
		if c.Kind == "selfie" {
			// The selfie comes out of a camera session; its frames'
			// analysis is package liveness's and the portal's to test.
			e.passedSession(t, tok, &c, img.Data)
			continue
		}
		if err := e.store.InTx(t.Context(), func(tx *store.Tx) error { _, err := e.svc.AddCapture(tx, tok, &c, img.Data); return err }); err != nil {
			t.Fatal(err)
		}
	}
	err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		if _, err := e.svc.SetDocumentData(tx, tok, doc); err != nil {
			return err
		}
		_, err := e.svc.Submit(tx, tok)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e.runJobs()
	return e.call("GET", "/v1/kyc-requests/"+id, e.A.LiveKey, "").json(t)
}

// passedSession records a camera session for tok's request whose verdict
// passed, with data as its one frame and selfie: the engine sees a
// camera_challenge selfie.
func (e *decisionEnv) passedSession(t *testing.T, tok string, selfie *kyc.Capture, data []byte) {
	t.Helper()
	err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		sess, _, err := e.svc.OpenLivenessSession(tx, tok, "test", "192.0.2.7")
		if err != nil {
			return err
		}
		now := tx.Now()
		sess.ReceivedAt = &now
		frames := []kyc.LivenessFrame{{Seq: 0, Step: 0, ContentType: selfie.ContentType, Width: selfie.Width, Height: selfie.Height,
			SHA256: selfie.SHA256, Data: data}}
		_, err = e.svc.FinishLivenessSession(tx, tok, sess, liveness.Verdict{Passed: true, Selfie: 0,
			Checks: []liveness.Check{{Name: liveness.CheckLight, Passed: true, Detail: "The face took on the screen colours."}}}, frames, selfie, data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The ICAO specimen holder, Anna Maria Eriksson: her specimen identity
// card and, as her selfie, her specimen passport's photo page.
const (
	erikssonJSON   = `{"firstName":"Anna Maria","lastName":"Eriksson","dob":"1974-08-12","country":"GB"}`
	erikssonDoc    = "images/doc_td2_uto_icao_specimen.jpg"
	erikssonSelfie = "images/doc_td3_uto_icao_specimen.jpg"
)

var erikssonPassport = &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "GB", DocumentNumber: "L898902C3", ExpiryDate: "2031-04-15",
	MRZ: mrzTD3("ERIKSSON", "ANNA MARIA", "L898902C3", "UTO", "740812", "F", "310415")}

// TestLiveDocumentReadFromImage: the case in live with every list
// loaded. The applicant types a made-up expiry (2031) and sends a photo
// of Eriksson's document; the server reads the photo's MRZ, which says it
// expired in 2012, and rejects. The selfie, a photo of her other specimen
// document, is flagged as a document. Every signal runs; what the
// document says comes from the image.
func TestLiveDocumentReadFromImage(t *testing.T) {
	e := liveEngineEnv(t)
	got := e.submitLive(t, erikssonJSON, erikssonDoc, erikssonSelfie, erikssonPassport)
	pr := got["processingResult"].(map[string]any)
	if got["status"] != "rejected" || got["automationDecision"] != "reject" || pr["signalsRun"] != pr["signalsTotal"] {
		t.Fatalf("typed expiry 2031 on a passport that expired in 2012: %v (%v), reasons %v", got["status"], got["decisionReason"], pr["reasons"])
	}
	codes := map[string]bool{}
	for _, r := range pr["reasons"].([]any) {
		codes[r.(map[string]any)["code"].(string)] = true
	}
	if !codes[decision.CodeDocumentExpired] || !codes[decision.CodeSelfieIsDocument] {
		t.Errorf("reasons %v, want DOCUMENT_EXPIRED and SELFIE_IS_DOCUMENT", pr["reasons"])
	}
	for _, s := range pr["signals"].([]any) {
		m := s.(map[string]any)
		if m["name"] == decision.SigDocumentData {
			data := m["data"].(map[string]any)
			if data["source"] != "document_image" || data["expiryDate"] != "2012-04-15" {
				t.Errorf("document_data %v", data)
			}
		}
	}
	// The documents list carries what was read from the photo, as read:
	// the zone's lines (the number masked), each character's confidence,
	// the fields taken from it.
	docs := e.call("GET", "/v1/kyc-requests/"+got["id"].(string)+"/documents", e.A.LiveKey, "").json(t)["data"].([]any)
	reading, _ := docs[0].(map[string]any)["reading"].(map[string]any)
	if reading == nil {
		t.Fatalf("document without its reading: %v", docs[0])
	}
	raw, _ := reading["raw"].([]any)
	conf, _ := reading["characterConfidence"].([]any)
	if reading["source"] != "mrz" || reading["format"] != "TD2" || len(raw) != 2 || !strings.HasPrefix(raw[1].(string), "*****5890") ||
		strings.Contains(raw[1].(string), "D23145890") || len(conf) != 2 || len(conf[1].([]any)) != 36 || len(reading["fields"].([]any)) != 9 {
		t.Errorf("reading: %v", reading)
	}
	// report.json carries the same reading on its capture (and is
	// checked against the description, liveness verdicts included).
	rep := e.call("GET", "/v1/kyc-requests/"+got["id"].(string)+"/report.json", e.A.LiveKey, "").json(t)
	found := false
	for _, c := range rep["captures"].([]any) {
		if r, _ := c.(map[string]any)["reading"].(map[string]any); r != nil && r["source"] == "mrz" {
			found = true
		}
	}
	if !found {
		t.Errorf("report.json: no capture carries the reading: %v", rep["captures"])
	}
}

// TestLiveDuplicateFace: Anna Maria Eriksson comes back as another
// applicant, with other details and other photos of her face:
// duplicate_face names the first request.
func TestLiveDuplicateFace(t *testing.T) {
	e := liveEngineEnv(t)
	first := e.submitLive(t, erikssonJSON, erikssonDoc, erikssonSelfie, erikssonPassport)
	svensson := &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "GB", DocumentNumber: "X4711K2B9", ExpiryDate: "2032-06-30",
		MRZ: mrzTD3("SVENSSON", "MARIA", "X4711K2B9", "UTO", "800101", "F", "320630")}
	got := e.submitLive(t, `{"firstName":"Maria","lastName":"Svensson","dob":"1980-01-01","country":"GB"}`,
		"images/doc_mrvb_uto_icao_visa.png", "images/doc_mrva_uto_icao_visa.png", svensson)
	pr := got["processingResult"].(map[string]any)
	reasons := pr["reasons"].([]any)
	t.Logf("second applicant: %v; reasons %v", got["status"], reasons)
	// The visa read from its photo is Eriksson's, expired: rejected, and
	// the face is found again under another name.
	dup := false
	for _, r := range reasons {
		dup = dup || r.(map[string]any)["code"] == decision.CodeDuplicateFace
	}
	if got["status"] == "approved" || !dup {
		t.Fatalf("second applicant, same face: %v (%v), reasons %v", got["status"], got["decisionReason"], reasons)
	}
	for _, s := range pr["signals"].([]any) {
		m := s.(map[string]any)
		if m["name"] != decision.SigDuplicateFace {
			continue
		}
		data := m["data"].(map[string]any)
		matches := data["matches"].([]any)
		// The first request's selfie and passport portrait: both hers.
		if m["status"] != "fail" || data["compared"] != 2.0 || len(matches) != 2 ||
			matches[0].(map[string]any)["requestId"] != first["id"] || matches[0].(map[string]any)["distance"].(float64) >= 0.6 {
			t.Errorf("duplicate_face %v", m)
		}
	}
}
