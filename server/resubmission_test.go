package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/store"
	"kycd/verification"
	"kycd/webhook"
)

// capture adds one image through the portal's use case with token.
func (e *kycEnv) capture(tok, kind string, side *string, docType, country string, seed uint8) error {
	img := pngBytes(e.t, seed)
	sum := sha256.Sum256(img)
	c := &kyc.Capture{Kind: kind, Side: side, ContentType: "image/png", Width: 300, Height: 200, SHA256: hex.EncodeToString(sum[:]),
		SourceSHA256: hex.EncodeToString(sum[:]), Method: kyc.MethodUpload, UserAgent: "test", IP: "192.0.2.1"}
	if kind == "document" {
		c.DocumentType, c.Country = &docType, &country
	}
	return e.store.InTx(e.t.Context(), func(tx *store.Tx) error { _, err := e.svc.AddCapture(tx, tok, c, img); return err })
}

func reasonOf(err error) string { return kyc.AsError(err).Code + "/" + kyc.AsError(err).Reason }

// TestKYCResubmission walks a resubmission through the API, the portal's
// use cases and the engine, with the webhooks delivered to a real
// receiver that checks each body against the description: the request
// goes back to the applicant for one step, the new link opens that step
// only and stops after submission, the engine decides again on the latest
// image, and both attempts stay in the API and report.json.
func TestKYCResubmission(t *testing.T) {
	e := newDecisionEnv(t)
	key := e.A.SandboxKey
	c := e.create(key, `{"applicant":{"firstName":"Ada","lastName":"Review","email":"ada@example.com","dob":"1990-12-10","country":"GB"},"locale":"de"}`)
	id, first := c["id"].(string), token(t, c)
	e.submit(first, "id_card", true)
	e.runJobs()
	if got := e.call("GET", "/v1/kyc-requests/"+id, key, "").json(t); got["status"] != "awaiting_review" || got["attempt"] != float64(1) {
		t.Fatalf("before: %v", got)
	}

	// Validation: a table of bodies refused before anything changes.
	for _, bad := range []struct{ body, field string }{
		{`{}`, "step"},
		{`{"step":"document_back"}`, "message"},
		{`{"step":"details","message":"Please type it again."}`, "step"},
		{`{"step":"selfie","message":"ok"}`, "message"},
		{`{"step":"selfie","message":"Please take it again.","linkTtlHours":0}`, "linkTtlHours"},
		{`{"step":"selfie","message":"Please take it again.","linkTtlHours":337}`, "linkTtlHours"},
		{`{"step":"selfie","message":"Please take it\u202e again."}`, "message"},
	} {
		r := e.call("POST", "/v1/kyc-requests/"+id+"/resubmission", key, bad.body)
		if r.status != 400 || r.errCode(t) != "VALIDATION_ERROR" || !strings.Contains(string(r.body), `"field":"`+bad.field+`"`) {
			t.Errorf("%s: %d %s, want 400 on %s", bad.body, r.status, r.body, bad.field)
		}
	}

	r := e.call("POST", "/v1/kyc-requests/"+id+"/resubmission", key, `{"step":"document_back","message":"Die Rückseite ist unscharf. Bitte noch einmal bei gutem Licht."}`)
	got := r.json(t)
	if r.status != 200 || got["status"] != "resubmission_requested" || got["decision"] != "pending" || got["attempt"] != float64(2) {
		t.Fatalf("resubmission: %d %s", r.status, r.body)
	}
	rs := got["resubmissions"].([]any)[0].(map[string]any)
	if rs["step"] != "document_back" || rs["status"] != "open" || rs["attempt"] != float64(2) || rs["priorAutomationDecision"] != "review" ||
		rs["expiresAt"] != kyc.FormatTime(e.clock.Now().Add(72*time.Hour)) {
		t.Errorf("resubmission record: %v", rs)
	}
	second := token(t, got)
	if second == first {
		t.Fatal("the resubmission link is the first link")
	}
	// The localized e-mail with the new link and the message.
	emails, err := e.store.FindEmails(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	last := emails[len(emails)-1]
	if last.To != "ada@example.com" || !strings.Contains(last.Body, got["portalUrl"].(string)) ||
		!strings.Contains(last.Body, "Rückseite ist unscharf") || !strings.Contains(last.Subject, "wiederholen") {
		t.Errorf("resubmission e-mail: %q\n%s", last.Subject, last.Body)
	}

	// Attacks on the link. The first link is dead.
	back, front := "back", "front"
	if err := e.capture(first, "document", &back, "id_card", "GB", 40); kyc.AsError(err).Code != kyc.ENotFound {
		t.Errorf("first link after the resubmission: %v, want NOT_FOUND", err)
	}
	// The new one opens the back only: not the front, not the selfie, not
	// another document, not the details, not a face camera check.
	for name, err := range map[string]error{
		"front":          e.capture(second, "document", &front, "id_card", "GB", 41),
		"selfie":         e.capture(second, "selfie", nil, "", "", 42),
		"other document": e.capture(second, "document", &back, "driving_licence", "GB", 43),
		"other country":  e.capture(second, "document", &back, "id_card", "FR", 44),
		"details": e.store.InTx(t.Context(), func(tx *store.Tx) error {
			_, err := e.svc.SetDocumentData(tx, second, &kyc.DocumentData{DocumentType: "id_card", IssuingCountry: "GB", DocumentNumber: "X1", ExpiryDate: "2035-01-01"})
			return err
		}),
		"face camera": e.store.InTx(t.Context(), func(tx *store.Tx) error {
			_, _, err := e.svc.OpenLivenessSession(tx, second, "test", "192.0.2.1")
			return err
		}),
		"submit without the back": e.store.InTx(t.Context(), func(tx *store.Tx) error { _, err := e.svc.Submit(tx, second); return err }),
	} {
		want := map[string]string{"other document": "VALIDATION_ERROR/", "other country": "VALIDATION_ERROR/", "submit without the back": "VALIDATION_ERROR/"}[name]
		if want == "" {
			want = "FORBIDDEN/step_not_requested"
		}
		if got := reasonOf(err); got != want {
			t.Errorf("%s through the resubmission link: %s (%v), want %s", name, got, err, want)
		}
	}
	// Another request's camera session does not serve this link.
	other := e.create(key, `{"applicant":{"firstName":"Bob","lastName":"Review","dob":"1980-01-01","country":"GB"}}`)
	var otherSess string
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		s, _, err := e.svc.OpenDocumentSession(tx, token(t, other), "test", "192.0.2.1")
		if s != nil {
			otherSess = s.ID
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	err = e.store.InTx(t.Context(), func(tx *store.Tx) error {
		img := pngBytes(t, 45)
		_, err := e.svc.AddCaptureInSession(tx, second, &kyc.Capture{Kind: "document", Side: &back, DocumentType: ptr("id_card"), Country: ptr("GB"),
			ContentType: "image/png", Method: kyc.MethodUpload}, img, otherSess, "nonce")
		return err
	})
	if kyc.AsError(err).Code != kyc.ENotFound {
		t.Errorf("another request's document session: %v, want NOT_FOUND", err)
	}

	// The step itself, then submission: the engine decides again.
	if err := e.capture(second, "document", &back, "id_card", "GB", 46); err != nil {
		t.Fatalf("the back through its link: %v", err)
	}
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error { _, err := e.svc.Submit(tx, second); return err }); err != nil {
		t.Fatal(err)
	}
	// Used once: the link now shows the done page, and takes nothing.
	if err := e.capture(second, "document", &back, "id_card", "GB", 47); reasonOf(err) != "UNPROCESSABLE/done" {
		t.Errorf("link after submission: %v, want UNPROCESSABLE/done", err)
	}
	e.runJobs()
	got = e.call("GET", "/v1/kyc-requests/"+id, key, "").json(t)
	if got["status"] != "awaiting_review" || got["attempt"] != float64(2) || got["portalUrl"] != nil ||
		got["resubmissions"].([]any)[0].(map[string]any)["status"] != "submitted" {
		t.Fatalf("after the resubmission: %v", got)
	}
	tl := strings.Join(e.timeline(key, id), ",")
	if !strings.Contains(tl, "svc.kyc.request.resubmission_requested:resubmission_requested,svc.kyc.portal_link_opened:resubmission_requested,"+
		"svc.kyc.request.submitted:submitted,svc.kyc.request.processing:processing,svc.kyc.request.awaiting_review:awaiting_review") {
		t.Errorf("timeline: %s", tl)
	}
	e.mu.Lock()
	delivered := slices.Clone(e.events[id])
	e.mu.Unlock()
	if !slices.Contains(delivered, string(kyc.EventKYCResubmissionRequested)) ||
		strings.Count(strings.Join(delivered, ","), string(kyc.EventKYCAwaitingReview)) != 2 {
		t.Errorf("webhooks delivered: %v", delivered)
	}
	// Both backs stay, by attempt, in the API and the report.
	docs := e.call("GET", "/v1/kyc-requests/"+id+"/documents", key, "").json(t)["data"].([]any)
	var attempts []string
	for _, d := range docs {
		m := d.(map[string]any)
		attempts = append(attempts, fmt.Sprintf("%s@%v", m["side"], m["attempt"]))
	}
	if strings.Join(attempts, ",") != "front@1,back@1,back@2" {
		t.Errorf("documents by attempt: %v", attempts)
	}
	rep := e.call("GET", "/v1/kyc-requests/"+id+"/report.json", key, "").json(t)
	if n := len(rep["captures"].([]any)); n != 4 || len(rep["resubmissions"].([]any)) != 1 {
		t.Errorf("report: %d captures, resubmissions %v", n, rep["resubmissions"])
	}
	if pdf := e.call("GET", "/v1/kyc-requests/"+id+"/report.pdf", key, ""); pdf.status != 200 {
		t.Errorf("report.pdf: %d", pdf.status)
	}

	// Limits: three per request, then the reviewer decides.
	for i := 2; i <= kyc.MaxResubmissions+1; i++ {
		r := e.call("POST", "/v1/kyc-requests/"+id+"/resubmission", key, `{"step":"selfie","message":"Please take the photo of your face again."}`)
		if i > kyc.MaxResubmissions {
			if r.status != 422 || !strings.Contains(string(r.body), "too_many_resubmissions") {
				t.Errorf("resubmission %d: %d %s, want 422", i, r.status, r.body)
			}
			break
		}
		if r.status != 200 {
			t.Fatalf("resubmission %d: %d %s", i, r.status, r.body)
		}
		// Its link expires unused: back to review, on the evidence there is.
		e.clock.Advance(73 * time.Hour)
		e.runJobs()
		if st := e.call("GET", "/v1/kyc-requests/"+id, key, "").json(t)["status"]; st != "awaiting_review" {
			t.Fatalf("after the link of resubmission %d expired: %v", i, st)
		}
	}
	// A decided request is final.
	if r := e.call("POST", "/v1/kyc-requests/"+id+"/reject", key, `{"note":"Not the same person."}`); r.status != 200 {
		t.Fatalf("reject: %d %s", r.status, r.body)
	}
	if r := e.call("POST", "/v1/kyc-requests/"+id+"/resubmission", key, `{"step":"selfie","message":"Please take it again."}`); r.status != 400 || r.errCode(t) != "INVALID_TRANSITION" {
		t.Errorf("resubmission of a rejected request: %d %s", r.status, r.body)
	}
	// Erasure takes the reviewer's message (free text about the person)
	// with the rest of the applicant's data. (It failed with a 500 before:
	// the erasure read the request's space-separated reason codes as
	// JSON.)
	app := e.call("GET", "/v1/kyc-requests/"+id, key, "").json(t)["applicantId"].(string)
	if r := e.call("DELETE", "/v1/applicants/"+app, key, ""); r.status/100 != 2 {
		t.Fatalf("erase: %d %s", r.status, r.body)
	}
	for _, x := range e.call("GET", "/v1/kyc-requests/"+id, key, "").json(t)["resubmissions"].([]any) {
		if m := x.(map[string]any)["message"]; m != "" {
			t.Errorf("message after erasure: %q", m)
		}
	}
	// Another organization's key does not find it.
	if r := e.call("POST", "/v1/kyc-requests/"+id+"/resubmission", e.B.SandboxKey, `{"step":"selfie","message":"Please take it again."}`); r.status != 404 {
		t.Errorf("another organization's key: %d %s", r.status, r.body)
	}
	// Another environment's key does not reach it.
	if r := e.call("POST", "/v1/kyc-requests/"+id+"/resubmission", e.A.LiveKey, `{"step":"selfie","message":"Please take it again."}`); r.status != 403 {
		t.Errorf("live key on a sandbox request: %d %s", r.status, r.body)
	}
}

func ptr(s string) *string { return &s }

// TestKYCOverdueEvent: with a review SLA, a request awaiting review past
// its due time gets svc.kyc.request.overdue once, delivered to a real
// receiver that checks the body against the description; a second sweep,
// and a new process (another service and runner on the same database,
// reading the job table) send nothing more; the queue's overdue count
// is the number of requests announced.
func TestKYCOverdueEvent(t *testing.T) {
	e := newDecisionEnv(t)
	key := e.A.SandboxKey
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetReviewSLA(e.A.ID, kyc.Sandbox, 2) }); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, name := range []string{"Review", "Review"} {
		c := e.create(key, `{"applicant":{"firstName":"Ada","lastName":"`+name+`","dob":"1990-12-10","country":"GB"}}`)
		e.submit(token(t, c), "passport", true)
		ids = append(ids, c["id"].(string))
		e.clock.Advance(90 * time.Minute) // the second is submitted 90 minutes later
	}
	if err := e.svc.ScheduleOverdue(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.runJobs() // 90 minutes after the second: only the first is 2 h old
	count := func() int {
		n, err := e.store.CountOverdue(t.Context(), e.A.ID, kyc.Sandbox, e.clock.Now().Add(-2*time.Hour), false)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	overdue := func(id string) int {
		e.mu.Lock()
		defer e.mu.Unlock()
		n := 0
		for _, ev := range e.events[id] {
			if ev == string(kyc.EventKYCOverdue) {
				n++
			}
		}
		return n
	}
	e.clock.Advance(time.Minute)
	e.runJobs()
	if overdue(ids[0]) != 1 || overdue(ids[1]) != 0 || count() != 1 {
		t.Fatalf("first sweep: overdue events %d/%d, queue count %d; want 1/0 and 1", overdue(ids[0]), overdue(ids[1]), count())
	}
	got := e.call("GET", "/v1/kyc-requests/"+ids[0], key, "").json(t)
	if got["overdueAt"] == nil || got["status"] != "awaiting_review" {
		t.Errorf("announced request: %v", got)
	}
	// A new process: another service and runner on the same store find the
	// scheduled sweep in the job table and announce only the new one.
	svc := verification.New(e.store, nil, "https://verify.example.com/portal", nil)
	runner := jobs.New(jobs.Options{Store: e.store, Now: e.clock.Now})
	svc.RegisterJobs(runner)
	(&webhook.Dispatcher{Store: e.store, Box: e.opts.Secrets, Sender: webhook.NewSender(true), Now: e.clock.Now}).Register(runner)
	if err := svc.ScheduleOverdue(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Hour)
	for i := 0; i < 10; i++ {
		n, err := runner.RunOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	if overdue(ids[0]) != 1 || overdue(ids[1]) != 1 || count() != 2 {
		t.Fatalf("after restart: overdue events %d/%d, queue count %d; want 1/1 and 2", overdue(ids[0]), overdue(ids[1]), count())
	}
	if n, err := svc.SweepOverdue(t.Context()); err != nil || n != 0 {
		t.Errorf("another sweep announced %d (%v), want 0", n, err)
	}
	// Decided: no longer in the count.
	if r := e.call("POST", "/v1/kyc-requests/"+ids[0]+"/approve", key, `{"note":"Checked."}`); r.status != http.StatusOK {
		t.Fatal(r.status)
	}
	if count() != 1 {
		t.Errorf("count after a decision: %d, want 1", count())
	}
}

// TestKYCResubmissionCaptureRules: the server's capture rules hold on a
// resubmitted step as on the first attempt. The camera check step takes
// no upload; a liveness session of the earlier attempt does not serve the
// new one; the new attempt has the first attempt's allowance of camera
// checks, no more; a document step takes a camera_session photo only in
// a session it opened, and a document session of the earlier attempt does
// not count.
func TestKYCResubmissionCaptureRules(t *testing.T) {
	e := newKYCEnv(t)
	key := e.A.SandboxKey
	c := e.create(key, `{"applicant":{"firstName":"Ada","lastName":"Lovelace","dob":"1990-12-10","country":"GB"}}`)
	id, tok := c["id"].(string), token(t, c)
	var firstLive *kyc.LivenessSession
	var firstLiveNonce string
	var firstDoc *kyc.DocumentSession
	var firstDocNonce string
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) (err error) {
		if firstLive, firstLiveNonce, err = e.svc.OpenLivenessSession(tx, tok, "test", "192.0.2.1"); err != nil {
			return err
		}
		firstDoc, firstDocNonce, err = e.svc.OpenDocumentSession(tx, tok, "test", "192.0.2.1")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e.submit(tok, "passport", true)
	e.runJobs()

	ask := func(step string) string {
		t.Helper()
		r := e.call("POST", "/v1/kyc-requests/"+id+"/resubmission", key, `{"step":"`+step+`","message":"Please do it again."}`)
		if r.status != 200 {
			t.Fatalf("resubmission of %s: %d %s", step, r.status, r.body)
		}
		return token(t, r.json(t))
	}
	redo := ask("liveness")
	if err := e.capture(redo, "selfie", nil, "", "", 50); reasonOf(err) != "FORBIDDEN/step_not_requested" {
		t.Errorf("an uploaded selfie for the camera check: %v", err)
	}
	err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		_, _, err := e.svc.LivenessSessionForUpload(tx, redo, firstLive.ID, firstLiveNonce)
		return err
	})
	if kyc.AsError(err).Code != kyc.ENotFound {
		t.Errorf("the first attempt's camera check on the new link: %v, want NOT_FOUND", err)
	}
	for i := 1; i <= kyc.MaxLivenessSessions+1; i++ {
		err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
			_, _, err := e.svc.OpenLivenessSession(tx, redo, "test", "192.0.2.1")
			return err
		})
		if i <= kyc.MaxLivenessSessions && err != nil {
			t.Fatalf("camera check %d of the new attempt: %v", i, err)
		}
		if i > kyc.MaxLivenessSessions && reasonOf(err) != "UNPROCESSABLE/too_many_sessions" {
			t.Errorf("camera check %d: %v, want too_many_sessions", i, err)
		}
	}
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error { _, err := e.svc.Submit(tx, redo); return err }); kyc.AsError(err).Code != kyc.EValidation {
		t.Errorf("submit without a passed camera check: %v", err)
	}
	// The link runs out: back to review, then a document step.
	e.clock.Advance(73 * time.Hour)
	e.runJobs()
	redo = ask("document_front")
	front, pt, gb := "front", "passport", "GB"
	photoOf := func(seed uint8) (*kyc.Capture, []byte) {
		img := pngBytes(t, seed)
		return &kyc.Capture{Kind: "document", Side: &front, DocumentType: &pt, Country: &gb, ContentType: "image/png", Width: 300, Height: 200,
			Method: kyc.MethodUpload}, img
	}
	err = e.store.InTx(t.Context(), func(tx *store.Tx) error {
		c, img := photoOf(51)
		_, err := e.svc.AddCaptureInSession(tx, redo, c, img, firstDoc.ID, firstDocNonce)
		return err
	})
	if kyc.AsError(err).Code != kyc.ENotFound {
		t.Errorf("the first attempt's document session on the new link: %v, want NOT_FOUND", err)
	}
	err = e.store.InTx(t.Context(), func(tx *store.Tx) error {
		sess, nonce, err := e.svc.OpenDocumentSession(tx, redo, "test", "192.0.2.1")
		if err != nil {
			return err
		}
		c, img := photoOf(52)
		if _, err := e.svc.AddCaptureInSession(tx, redo, c, img, sess.ID, "not-the-nonce"); kyc.AsError(err).Reason != "nonce_mismatch" {
			t.Errorf("a wrong nonce: %v", err)
		}
		c, img = photoOf(53)
		_, err = e.svc.AddCaptureInSession(tx, redo, c, img, sess.ID, nonce)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := e.store.FindCaptures(t.Context(), id, "document")
	if err != nil {
		t.Fatal(err)
	}
	if last := caps[len(caps)-1]; last.Attempt != 3 || last.Method != kyc.MethodCameraSession {
		t.Errorf("the resubmitted front: attempt %d, %s; want 3, camera_session", last.Attempt, last.Method)
	}
}
