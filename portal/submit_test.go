package portal_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"kycd/internal/realdata"
	"kycd/jobs"
	"kycd/kyc"
)

// TestSubmitMissing names every photo still missing, for each workflow
// and document, and leaves the request as it was.
func TestSubmitMissing(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		name    string
		wf      kyc.WorkflowType
		uploads []map[string]string
		want    string
	}{
		{"nothing", kyc.WorkflowStandard, nil, "document.front,selfie"},
		{"nothing, document only", kyc.WorkflowDocumentOnly, nil, "document.front"},
		{"card without back", kyc.WorkflowStandard, []map[string]string{doc("front", "id_card")}, "document.back,selfie"},
		{"card and selfie", kyc.WorkflowStandard, []map[string]string{doc("front", "driving_licence"), selfie()}, "document.back"},
		{"passport without selfie", kyc.WorkflowStandard, []map[string]string{doc("front", "passport")}, "selfie"},
		{"selfie only", kyc.WorkflowStandard, []map[string]string{selfie()}, "document.front"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			token, req := e.create(tt.wf, "")
			for _, f := range tt.uploads {
				if r := e.upload(token, f, photo(t, 400, 300)); r.status != 201 {
					t.Fatalf("upload: %d %s", r.status, r.body)
				}
			}
			r := e.do("POST", "/portal/"+token+"/submit", nil)
			if r.status != 400 {
				t.Fatalf("status=%d, want 400: %s", r.status, r.body)
			}
			env := r.envelope(t)
			if env.Error.Code != kyc.EValidation || env.fields() != tt.want {
				t.Errorf("details=%s, want %s: %s", env.fields(), tt.want, r.body)
			}
			// The refused submission changed nothing: an upload had opened
			// the link, else it is as created.
			want := kyc.KYCInProgress
			if len(tt.uploads) == 0 {
				want = kyc.KYCLinkGenerated
			}
			if s := e.request(req.ID).Status; s != want {
				t.Errorf("status=%s, want %s", s, want)
			}
		})
	}
}

// TestSubmitLinks: a second submission is 410 done (the page treats it as
// success), an expired link 410 expired, an unknown one 404.
func TestSubmitLinks(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowDocumentOnly, "")
	if r := e.upload(token, doc("front", "passport"), photo(t, 400, 300)); r.status != 201 {
		t.Fatal(r.body)
	}
	if r := e.do("POST", "/portal/"+token+"/submit", nil); r.status != 200 || !strings.Contains(r.body, `"redirectUrl":null`) {
		t.Fatalf("submit: %d %s", r.status, r.body)
	}
	r := e.do("POST", "/portal/"+token+"/submit", nil)
	if r.status != 410 || r.envelope(t).Error.Reason != "done" {
		t.Errorf("second submit: %d %s", r.status, r.body)
	}
	if r := e.upload(token, doc("front", "passport"), photo(t, 400, 300)); r.status != 410 || r.envelope(t).Error.Reason != "done" {
		t.Errorf("upload after submit: %d %s", r.status, r.body)
	}
	if r := e.do("POST", "/portal/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/submit", nil); r.status != 404 {
		t.Errorf("unknown token: %d %s", r.status, r.body)
	}
	expired, _ := e.create(kyc.WorkflowStandard, "")
	e.expire()
	if r := e.do("POST", "/portal/"+expired+"/submit", nil); r.status != 410 || r.envelope(t).Error.Reason != "expired" {
		t.Errorf("expired: %d %s", r.status, r.body)
	}
}

// TestFlow runs the whole portal without a browser, with real photos of
// a specimen identity card and a face: open, upload front, back and
// selfie, submit, and the processing job takes the request to
// awaiting_review. Opening the link again then shows the done page with
// the way back to the organization.
func TestFlow(t *testing.T) {
	front := readData(t, "images/doc_td1_lie_id_specimen.png")
	back := readData(t, "images/doc_td1_svn_id_back.jpg")
	face := readData(t, "images/face_paulrudd_01.jpg")
	e := newEnv(t)
	token, req := e.create(kyc.WorkflowStandard, "https://shop.example/after-kyc")
	if r := e.do("GET", "/portal/"+token, nil); r.status != 200 {
		t.Fatalf("open: %d", r.status)
	}
	for _, u := range []struct {
		fields map[string]string
		image  []byte
	}{
		{doc("front", "id_card"), front},
		{doc("back", "id_card"), back},
		{map[string]string{"kind": "selfie", "method": "upload"}, face},
	} {
		if r := e.upload(token, u.fields, u.image); r.status != 201 {
			t.Fatalf("upload %v: %d %s", u.fields, r.status, r.body)
		}
	}
	r := e.do("POST", "/portal/"+token+"/submit", nil)
	var res struct {
		Status      string
		RedirectURL string
	}
	if err := json.Unmarshal([]byte(r.body), &res); r.status != 200 || err != nil ||
		res.Status != "submitted" || res.RedirectURL != "https://shop.example/after-kyc" {
		t.Fatalf("submit: %d %s", r.status, r.body)
	}

	runner := jobs.New(jobs.Options{Store: e.st, Now: e.clock.Now})
	e.svc.RegisterJobs(runner)
	if _, err := runner.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := e.request(req.ID)
	if got.Status != kyc.KYCAwaitingReview {
		t.Fatalf("status=%s, want awaiting_review", got.Status)
	}
	caps, err := e.st.FindCaptures(t.Context(), req.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 3 || caps[0].ContentType != "image/png" || caps[2].Method != "upload" {
		t.Errorf("captures: %+v", caps)
	}
	r = e.do("GET", "/portal/"+token, nil)
	if r.status != 410 || !strings.Contains(r.body, `data-state="done"`) || !strings.Contains(r.body, `href="https://shop.example/after-kyc"`) {
		t.Errorf("page after submission: %d\n%s", r.status, r.body)
	}
}

// readData reads a file of the shared real-data folder (skipping the test
// when it is not there, failing under CI).
func readData(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(realdata.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
