package portal_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"kycd/kyc"
	"kycd/store"
)

// submitFirst takes a standard request through its first attempt with a
// passport photo and a selfie (uploads) and the engine (manual: review),
// and asks over the API for a resubmission of step; it returns the
// resubmission's link.
func (s *stack) submitFirst(link, id string, step kyc.ResubmissionStep) string {
	s.t.Helper()
	tok := link[strings.LastIndex(link, "/")+1:]
	err := s.st.InTx(s.t.Context(), func(tx *store.Tx) error {
		front, pt, de := "front", "passport", "DE"
		img := photo(s.t, 800, 560)
		if _, err := s.svc.AddCapture(tx, tok, &kyc.Capture{Kind: "document", Side: &front, DocumentType: &pt, Country: &de,
			ContentType: "image/jpeg", Width: 800, Height: 560, Method: kyc.MethodUpload}, img); err != nil {
			return err
		}
		if _, err := s.svc.AddCapture(tx, tok, &kyc.Capture{Kind: "selfie", ContentType: "image/jpeg", Width: 800, Height: 560,
			Method: kyc.MethodUpload}, img); err != nil {
			return err
		}
		if _, err := s.svc.SetDocumentData(tx, tok, &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "DE",
			DocumentNumber: "C01X00T47", ExpiryDate: "2034-01-01"}); err != nil {
			return err
		}
		_, err := s.svc.Submit(tx, tok)
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	s.runJobs()
	if st := s.status(id); st != kyc.KYCAwaitingReview {
		s.t.Fatalf("after the first attempt: %s", st)
	}
	r := s.api("POST", "/v1/kyc-requests/"+id+"/resubmission", map[string]any{"step": step,
		"message": "The photo page is blurred.\nPlease take it again in good light."}, http.StatusOK)
	return r["portalUrl"].(string)
}

// post sends a portal request to the stack's server.
func (s *stack) post(path, contentType string, body io.Reader) (int, string) {
	s.t.Helper()
	req, err := http.NewRequestWithContext(s.t.Context(), "POST", path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestResubmissionLinkOpensOneStep attacks a resubmission's link over
// HTTP as a page could: it takes the step's photo and nothing else (no
// other side, no selfie, no details, no face camera check), a photo
// claimed to come from a camera is not a camera capture without the
// server's session, and once the step is sent the link is spent.
func TestResubmissionLinkOpensOneStep(t *testing.T) {
	s := newStack(t)
	link, id := s.create(kyc.WorkflowStandard, "")
	redo := s.submitFirst(link, id, kyc.StepDocumentFront)
	img := photo(t, 800, 560)
	upload := func(fields map[string]string) (int, string) {
		body, ct := multipartBody(t, fields, img)
		return s.post(redo+"/captures", ct, body)
	}
	for name, fields := range map[string]map[string]string{
		"back":   doc("back", "id_card"),
		"selfie": selfie(),
	} {
		if st, body := upload(fields); st != http.StatusForbidden || !strings.Contains(body, "step_not_requested") {
			t.Errorf("%s through a front link: %d %s", name, st, body)
		}
	}
	if st, body := upload(doc("front", "id_card")); st != http.StatusBadRequest || !strings.Contains(body, "documentType") {
		t.Errorf("another document through the link: %d %s", st, body)
	}
	if st, body := s.post(redo+"/document", "application/json", strings.NewReader(
		`{"documentType":"passport","issuingCountry":"DE","documentNumber":"X1","expiryDate":"2034-01-01"}`)); st != http.StatusForbidden {
		t.Errorf("details through the link: %d %s", st, body)
	}
	if st, body := s.post(redo+"/liveness", "", nil); st != http.StatusForbidden {
		t.Errorf("a face camera check through a document link: %d %s", st, body)
	}
	if st, body := s.post(link+"/captures", "", nil); st != http.StatusNotFound {
		t.Errorf("the first link after the resubmission: %d %s", st, body)
	}
	// The step itself, claimed as a camera photo: stored as an upload,
	// as the first attempt's rule says (the server's session decides).
	if st, body := upload(doc("front", "passport")); st != http.StatusCreated && st != http.StatusOK {
		t.Fatalf("the front: %d %s", st, body)
	}
	if st, body := s.post(redo+"/submit", "", nil); st != http.StatusOK {
		t.Fatalf("submit: %d %s", st, body)
	}
	if st, body := upload(doc("front", "passport")); st != http.StatusGone || !strings.Contains(body, `"reason":"done"`) {
		t.Errorf("the link after submission: %d %s", st, body)
	}
	caps, err := s.st.FindCaptures(t.Context(), id, "document")
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 2 || caps[1].Attempt != 2 || caps[1].Method != kyc.MethodUpload {
		t.Errorf("documents: %+v", caps)
	}
	// The engine ran again, on the new front and the first selfie: two
	// images of the three stored.
	s.runJobs()
	r := s.api("GET", "/v1/kyc-requests/"+id, nil, http.StatusOK)
	if r["status"] != "awaiting_review" || r["processingResult"].(map[string]any)["capturesCount"] != float64(2) {
		t.Errorf("after the resubmission: %v %v", r["status"], r["processingResult"])
	}
}

// TestBrowserResubmissionStep is the applicant's single-step page in
// Chromium at 1280 and 390 px: the reviewer's message and the step in
// words, no consent or document choice, the step's capture (the camera
// refused, so a file), a one-item review, done; the link then shows the
// done page. axe-core finds no serious or critical violation on any of
// them and there is no CSP violation.
func TestBrowserResubmissionStep(t *testing.T) {
	passport := filepath.Join(t.TempDir(), "passport.jpg")
	if err := os.WriteFile(passport, photo(t, 1200, 840), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newStack(t)
	link, id := s.create(kyc.WorkflowStandard, "")
	redo := s.submitFirst(link, id, kyc.StepDocumentFront)
	axe := loadAxe(t)

	wide := newTab(t, 1280, false)
	wide.withAxe(axe)
	wide.do(chromedp.Navigate(redo))
	wide.waitFor(`!document.getElementById('step-redo').hidden`)
	wide.axe("redo intro at 1280")
	wide.shot("redo-intro")
	wide.click(`[data-action=redo-start]`)
	wide.step("capture")
	wide.axe("redo capture at 1280")
	wide.noViolations()
	wide.shot("redo-capture")

	b := newTab(t, 390, false)
	b.withAxe(axe)
	b.do(chromedp.Navigate(redo))
	b.waitFor(`!document.getElementById('step-redo').hidden`)
	got := b.text("step-redo")
	for _, want := range []string{"STEP 1 OF 3", "redo one step", "the front of your document", "The photo page is blurred.", "Please take it again in good light."} {
		if !strings.Contains(got, want) {
			t.Errorf("intro lacks %q: %q", want, got)
		}
	}
	if eval[bool](b, `!document.getElementById('step-welcome').hidden || !document.getElementById('step-document').hidden`) {
		t.Error("the welcome or document step shows on a resubmission link")
	}
	b.axe("redo intro at 390")
	b.shot("redo-intro")
	b.click(`[data-action=redo-start]`)
	b.step("capture")
	if got := b.text("capture-title"); got != "Photo page of your passport" {
		t.Errorf("capture title: %q", got)
	}
	b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{passport}))
	b.step("review")
	b.waitFor(`document.querySelectorAll('#review-list li').length === 1`)
	b.axe("redo review at 390")
	b.shot("redo-review")
	b.click(`#submit`)
	b.step("done")
	b.axe("redo done at 390")
	b.noViolations()
	b.shot("redo-done")
	b.do(chromedp.Navigate(redo))
	b.waitFor(`document.getElementById('state') && document.getElementById('state').dataset.state === 'done'`)

	s.runJobs()
	if st := s.status(id); st != kyc.KYCAwaitingReview {
		t.Errorf("after the resubmission: %s", st)
	}
	caps, err := s.st.FindCaptures(t.Context(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	var got2 []string
	for _, c := range caps {
		side := ""
		if c.Side != nil {
			side = *c.Side
		}
		got2 = append(got2, c.Kind+side+"@"+string(rune('0'+c.Attempt)))
	}
	if strings.Join(got2, ",") != "documentfront@1,selfie@1,documentfront@2" {
		t.Errorf("captures: %v", got2)
	}
}

// TestResubmissionPageForCameraCheck: a camera check's link renders the
// one-step page for the face (no upload offered), opens a face camera
// session, and refuses an uploaded selfie and a document camera.
func TestResubmissionPageForCameraCheck(t *testing.T) {
	s := newStack(t)
	link, id := s.create(kyc.WorkflowStandard, "")
	redo := s.submitFirst(link, id, kyc.StepLiveness)
	res, err := http.Get(redo + "?lang=de")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`data-redo-slot="selfie"`, `data-redo-camera-only="true"`, "die Kameraprüfung Ihres Gesichts", `id="step-welcome" data-stage="1" hidden`} {
		if res.StatusCode != http.StatusOK || !strings.Contains(string(page), want) {
			t.Errorf("page %d lacks %q", res.StatusCode, want)
		}
	}
	body, ct := multipartBody(t, selfie(), photo(t, 800, 560))
	if st, b := s.post(redo+"/captures", ct, body); st != http.StatusForbidden || !strings.Contains(b, "step_not_requested") {
		t.Errorf("an uploaded selfie for the camera check: %d %s", st, b)
	}
	if st, b := s.post(redo+"/document-session", "", nil); st != http.StatusForbidden {
		t.Errorf("a document camera for the camera check: %d %s", st, b)
	}
	if st, b := s.post(redo+"/liveness", "", nil); st/100 != 2 || !strings.Contains(b, "nonce") {
		t.Errorf("the face camera check: %d %s", st, b)
	}
}
