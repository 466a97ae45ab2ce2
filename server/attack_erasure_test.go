package server_test

import (
	"context"
	"testing"

	"kycd/decision"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/store"
	"kycd/verification"
)

// erasingEngine is an engine during whose run the applicant is erased
// (the admin's DELETE lands while the job decides, outside any
// transaction), and which then answers approve with results that quote
// the document: what a real engine returns after reading it.
type erasingEngine struct{ during func() }

func (g *erasingEngine) Decide(ctx context.Context, in decision.Input) (decision.Result, error) {
	g.during()
	return decision.Result{Outcome: decision.Approve, Confidence: 0.99, Reason: "all checks passed",
		Processing:         map[string]any{"document": map[string]any{"lastName": "Lovelace", "documentNumber": "X1234567"}},
		DocumentNumberRead: "X1234567"}, nil
}

// TestAttackErasureWhileProcessing: an applicant erased while the engine
// decides one of their requests. The job's write, after the erasure, must
// neither approve the erased applicant nor write back what the engine
// read from their images (processing result, the document number read).
func TestAttackErasureWhileProcessing(t *testing.T) {
	e := newAPIEnv(t)
	var id, applicant string
	engine := &erasingEngine{}
	engine.during = func() {
		if r := e.call("DELETE", "/v1/applicants/"+applicant, e.A.LiveKey, ""); r.status != 200 {
			t.Errorf("erasure during processing: %d %s", r.status, r.body)
		}
	}
	svc := verification.New(e.store, engine, "https://verify.example.com/portal", nil)
	e.opts.KYC, e.opts.PortalURL = svc, "https://verify.example.com/portal"
	e.start()
	runner := jobs.New(jobs.Options{Store: e.store, Now: e.clock.Now})
	svc.RegisterJobs(runner)
	k := &kycEnv{apiEnv: e, svc: svc, runner: runner}

	c := k.create(e.A.LiveKey, `{"applicant":{"firstName":"Ada","lastName":"Lovelace","dob":"1990-12-10","country":"GB"}}`)
	id, applicant = c["id"].(string), c["applicantId"].(string)
	k.submit(token(t, c), "passport", true)
	k.runJobs()

	got := e.call("GET", "/v1/kyc-requests/"+id, e.A.LiveKey, "").json(t)
	if got["status"] == "approved" || got["decision"] == "approved" {
		t.Errorf("an applicant erased during processing was approved: %v", got)
	}
	if pr, ok := got["processingResult"]; ok && pr != nil {
		t.Errorf("the engine's results were written back after the erasure: %v", pr)
	}
	var n int
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		r, err := tx.FindKYCRequestByID(id)
		if err != nil {
			return err
		}
		if r.ProcessingResult != nil {
			n++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("the stored request holds a processing result after the erasure")
	}
}

// TestAttackLinkAfterErasure: the portal link of an erased applicant's
// request (the first link, and a resubmission's) takes no new image and
// no submission: erasure must not be followed by fresh personal data.
func TestAttackLinkAfterErasure(t *testing.T) {
	e := newKYCEnv(t)
	key := e.A.LiveKey
	// A link never used.
	c := e.create(key, `{"applicant":{"firstName":"Ada","lastName":"Lovelace","dob":"1990-12-10","country":"GB"}}`)
	tok, applicant := token(t, c), c["applicantId"].(string)
	if r := e.call("DELETE", "/v1/applicants/"+applicant, key, ""); r.status != 200 {
		t.Fatalf("erase: %d %s", r.status, r.body)
	}
	front := "front"
	if err := e.capture(tok, "document", &front, "passport", "GB", 60); err == nil {
		t.Error("the erased applicant's link took a new image")
	}
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error { _, err := e.svc.Submit(tx, tok); return err }); err == nil {
		t.Error("the erased applicant's link was submitted")
	}

	// A resubmission's link.
	c = e.create(key, `{"applicant":{"firstName":"Grace","lastName":"Hopper","dob":"1986-12-09","country":"GB"}}`)
	id, applicant := c["id"].(string), c["applicantId"].(string)
	e.submit(token(t, c), "passport", true)
	e.runJobs()
	r := e.call("POST", "/v1/kyc-requests/"+id+"/resubmission", key, `{"step":"document_front","message":"Please take it again."}`)
	if r.status != 200 {
		t.Fatalf("resubmission: %d %s", r.status, r.body)
	}
	redo := token(t, r.json(t))
	if r := e.call("DELETE", "/v1/applicants/"+applicant, key, ""); r.status != 200 {
		t.Fatalf("erase: %d %s", r.status, r.body)
	}
	if err := e.capture(redo, "document", &front, "passport", "GB", 61); err == nil {
		t.Error("the erased applicant's resubmission link took a new image")
	}
	if st := e.call("GET", "/v1/kyc-requests/"+id, key, "").json(t)["status"]; st == kyc.KYCSubmitted || st == "approved" {
		t.Errorf("status after the erasure: %v", st)
	}
}

// TestAttackErasureBeforeProcessing: the applicant is erased between
// submission and the engine's job: the job decides nothing on the erased
// record (the manual engine would send it to review with a result).
func TestAttackErasureBeforeProcessing(t *testing.T) {
	e := newKYCEnv(t)
	key := e.A.LiveKey
	c := e.create(key, `{"applicant":{"firstName":"Ada","lastName":"Lovelace","dob":"1990-12-10","country":"GB"}}`)
	id := c["id"].(string)
	e.submit(token(t, c), "passport", true)
	if r := e.call("DELETE", "/v1/applicants/"+c["applicantId"].(string), key, ""); r.status != 200 {
		t.Fatalf("erase: %d %s", r.status, r.body)
	}
	e.runJobs()
	got := e.call("GET", "/v1/kyc-requests/"+id, key, "").json(t)
	if got["status"] != "failed" || got["processingResult"] != nil {
		t.Errorf("after the job: %v, result %v", got["status"], got["processingResult"])
	}
}
