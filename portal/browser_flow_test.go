package portal_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"kycd/internal/realdata"
	"kycd/kyc"
)

// TestBrowserCamera is the end-to-end run the issue asks for: a KYC
// request is created, the applicant opens its portal link in Chromium,
// agrees (by keyboard), picks an identity card, takes front and back with
// the (fake) camera, types the card's number and expiry date (keyboard
// only), takes the selfie, retakes the back from the review, submits and
// is sent back to the organization's page; the processing job takes
// the request to awaiting_review, and the receiver gets created,
// portal_link_ready, submitted, processing and awaiting_review, signed.
func TestBrowserCamera(t *testing.T) {
	s := newStack(t)
	link, id := s.create(kyc.WorkflowStandard, s.srv.URL+"/thanks")
	b := newTab(t, 390, true)
	b.withAxe(loadAxe(t))

	b.do(chromedp.Navigate(link))
	b.waitFor(`!document.getElementById('step-welcome').hidden`)
	if got := b.text("step-welcome"); !strings.Contains(got, "Hello Erika") || !strings.Contains(got, "STEP 1 OF 6") {
		t.Errorf("welcome: %q", got)
	}
	b.shot("welcome")
	if st, opened := s.status(id), s.openedAt(id); st != kyc.KYCLinkGenerated || opened == nil {
		t.Errorf("after opening: status %s, portalOpenedAt %v; want link_generated and a time", st, opened)
	}

	// Start without agreeing: an error, and the focus on the box.
	b.click(`[data-action=consent]`)
	b.waitFor(`!document.getElementById('consent-error').hidden && document.activeElement.id === 'consent'`)
	b.shot("consent-error")
	// Keyboard only: Space ticks the box, Tab reaches Start, Enter presses it.
	b.do(chromedp.KeyEvent(" "), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"))
	b.step("document")

	if got := eval[string](b, `document.getElementById('country').value`); got != "DE" {
		t.Errorf("preselected country=%q, want the applicant's DE", got)
	}
	b.click(`label[for=doctype-id_card]`)
	b.do(chromedp.SetValue(chromedp.ID("country"), "AT"))
	b.shot("document")
	b.click(`[data-action=document]`)

	for _, c := range []struct{ title, shot string }{
		{"Front of your identity card", "front-camera"},
		{"Back of your identity card", "back-camera"},
	} {
		b.cameraReady(c.title)
		// The guide shows where the machine-readable lines go, on the
		// side that has them.
		if mrz := eval[bool](b, `document.getElementById('guide').classList.contains('mrz')`); mrz != (c.shot == "back-camera") {
			t.Errorf("%s: MRZ guide shown %v", c.title, mrz)
		}
		b.shot(c.shot)
		b.click(`#shoot`)
	}
	// The fake camera shows no machine-readable zone: the server cannot
	// read the back, so the page asks for it again with the reason, twice;
	// after the third photo the details are typed.
	for try := 2; try <= 3; try++ {
		b.waitFor(fmt.Sprintf(`document.getElementById('capture-error').textContent.indexOf('try %d of 3') >= 0`, try))
		b.cameraReady("Back of your identity card")
		if got := b.text("capture-error"); !strings.Contains(got, "could not find the 2 or 3 lines") {
			t.Errorf("retake hint: %q", got)
		}
		if try == 2 {
			b.shot("retake-hint")
		}
		b.click(`#shoot`)
	}

	// The details, by keyboard alone: Tab from the heading to the number,
	// Tab to the date (typed as the browser's locale orders it, en-US
	// here), Enter sends the form. An identity card has an MRZ, so the
	// field and the 3-line example show.
	b.step("details")
	if got := b.text("step-details"); !strings.Contains(got, "STEP 4 OF 6") || !strings.Contains(got, "on your document: Identity card, Austria.") {
		t.Errorf("details step: %q", got)
	}
	if !eval[bool](b, `!document.getElementById('mrz-field').hidden && !document.getElementById('mrz-example-td1').hidden &&
  document.getElementById('mrz-example-td3').hidden`) {
		t.Error("identity card: the MRZ field or its 3-line example is hidden")
	}
	expiry := time.Now().AddDate(4, 2, 0)
	b.do(chromedp.KeyEvent("\t"))
	b.waitFor(`document.activeElement.id === 'doc-number'`)
	b.do(chromedp.KeyEvent("pa 1234567"), chromedp.KeyEvent("\t"))
	b.waitFor(`document.activeElement.id === 'doc-expiry'`)
	b.typeDate("doc-expiry", expiry)
	b.waitFor(`document.activeElement.id === 'doc-expiry'`)
	b.shot("details")
	b.do(chromedp.KeyEvent("\r"))

	// The selfie: the camera check over Chromium's generated test pattern
	// (no face) is refused; the applicant uploads a photo instead.
	b.cameraReady("Take a selfie")
	b.shot("selfie-camera")
	b.click(`#shoot`)
	b.waitUpTo(90*time.Second, `!document.getElementById('retry').hidden && !document.getElementById('capture-error').hidden`)
	if got := b.text("capture-error"); !strings.Contains(got, "face was not visible") {
		t.Errorf("check over a faceless pattern: %q", got)
	}
	b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{realdata.Path(t, "images/face_obama_01_official_portrait.jpg")}))

	b.step("review")
	b.waitFor(`(function () { var imgs = document.querySelectorAll('#review-list img');
  return imgs.length === 3 && Array.prototype.every.call(imgs, function (i) { return i.complete && i.naturalWidth > 0; }); })()`)
	if got := b.text("review-list"); !strings.Contains(got, "pa 1234567") ||
		!strings.Contains(got, expiry.Format("2 January 2006")) || !strings.Contains(got, "Identity card, Austria") {
		t.Errorf("review: %q", got)
	}
	b.shot("review")
	// Retake the back from the review: the camera again, then back here.
	// The applicant uploaded their selfie, so the page offers files
	// first now; they switch back to the camera.
	b.click(`button[data-slot=back]`)
	b.click(`#use-camera`)
	b.cameraReady("Back of your identity card")
	b.click(`#shoot`)
	b.step("review")
	b.noViolations()

	b.click(`#submit`)
	b.step("done")
	if href := eval[string](b, `document.getElementById('redirect-link').href`); href != s.srv.URL+"/thanks" {
		t.Errorf("redirect link=%q", href)
	}
	b.shot("done")
	b.noViolations()
	b.axe("done")
	// After the countdown the page sends the applicant back.
	navigated := chromedp.Events(b.ctx, page.FrameNavigated)
	for ev, err := range navigated {
		if err != nil {
			b.fail(err)
		}
		if ev.Frame.ParentID == "" && strings.HasSuffix(ev.Frame.URL, "/thanks") {
			break
		}
	}

	caps, err := s.st.FindCaptures(t.Context(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 3 {
		t.Fatalf("captures=%d, want 3", len(caps))
	}
	// The document photos were taken in the server's document camera
	// session (camera_session); the selfie, without a liveness session, is
	// an upload as the server sees it. What the page said (camera for the
	// documents, upload for the selfie) is kept as evidence.
	for _, c := range caps {
		claim := map[string]string{"document": "camera", "selfie": "upload"}[c.Kind]
		method := map[string]string{"document": kyc.MethodCameraSession, "selfie": kyc.MethodUpload}[c.Kind]
		if c.Method != method || c.Meta["clientMethod"] != claim || c.ContentType != "image/jpeg" || c.Width < 200 || c.Height < 200 ||
			!strings.Contains(c.UserAgent, "Chrome") || c.IP != "127.0.0.1" {
			t.Errorf("capture %s: %+v", c.Kind, c)
		}
		if c.Kind == "document" && (*c.Country != "AT" || *c.DocumentType != "id_card") {
			t.Errorf("document capture: %s %s", *c.Country, *c.DocumentType)
		}
	}
	if st := s.status(id); st != kyc.KYCSubmitted {
		t.Fatalf("status=%s, want submitted", st)
	}
	s.wantDocument(id, kyc.DocumentData{DocumentType: "id_card", IssuingCountry: "AT", DocumentNumber: "pa 1234567",
		ExpiryDate: expiry.Format(time.DateOnly)})
	s.runJobs()
	if st := s.status(id); st != kyc.KYCAwaitingReview {
		t.Fatalf("status after processing=%s, want awaiting_review", st)
	}
	s.wantWebhooks(id, kyc.EventKYCCreated, kyc.EventKYCPortalLinkReady, kyc.EventKYCSubmitted,
		kyc.EventKYCProcessing, kyc.EventKYCAwaitingReview)
}

// cameraReady waits for the capture step titled title with a running
// camera and the focus on "Take photo".
func (b *tab) cameraReady(title string) {
	b.t.Helper()
	b.waitFor(`document.getElementById('capture-title').textContent === '` + title + `' &&
  document.getElementById('video').videoWidth > 0 && !document.getElementById('shoot').hidden &&
  document.activeElement.id === 'shoot'`)
}

// TestBrowserUpload is the fallback at 320 px: the browser refuses the
// camera, the page says so and offers files; a PDF is refused with the
// server's message, a real passport photo is accepted and the page shows
// what the server read from its zone; the applicant says it is not theirs
// and retakes, and a photo without a zone is refused with the reason until
// the third, when the details are typed: the details step shows the
// server's error under each field, then takes the passport's number,
// expiry and pasted MRZ; a document-only request skips the selfie; the
// link then shows the done page.
func TestBrowserUpload(t *testing.T) {
	passport := realdata.Path(t, "images/doc_td3_deu_passport_specimen.jpg")
	coffee := realdata.Path(t, "images/noface_coffee.png")
	pdf := filepath.Join(t.TempDir(), "scan.pdf")
	if err := os.WriteFile(pdf, []byte("%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newStack(t)
	link, id := s.create(kyc.WorkflowDocumentOnly, "")
	b := newTab(t, 320, false)
	b.withAxe(loadAxe(t))

	b.do(chromedp.Navigate(link))
	b.waitFor(`!document.getElementById('step-welcome').hidden`)
	if got := b.text("step-welcome"); !strings.Contains(got, "STEP 1 OF 5") || strings.Contains(got, "photo of my face") {
		t.Errorf("document-only welcome: %q", got)
	}
	b.shot("welcome")
	b.click(`label[for=consent]`)
	b.click(`[data-action=consent]`)
	b.step("document")
	b.click(`label[for=doctype-passport]`)
	b.shot("document")
	b.click(`[data-action=document]`)

	b.waitFor(`!document.getElementById('capture-error').hidden && document.getElementById('camera').hidden`)
	if got := b.text("capture-error"); !strings.Contains(got, "Camera access was refused") {
		t.Errorf("camera refused message: %q", got)
	}
	if got := b.text("capture-title"); got != "Photo page of your passport" {
		t.Errorf("title: %q", got)
	}
	b.shot("camera-refused")

	b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{pdf}))
	b.waitFor(`document.getElementById('capture-error').textContent.indexOf('This file cannot be used') >= 0`)
	b.shot("upload-refused")

	b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{passport}))
	// The server reads the zone of the photo page and the page shows what
	// it says, for the applicant to confirm.
	b.step("read")
	if got := b.text("read-facts"); !strings.Contains(got, "MUSTERMANN") || !strings.Contains(got, "ERIKA") ||
		!strings.Contains(got, "12 August 1964") || !strings.Contains(got, "CA000000") || !strings.Contains(got, "21 February 2018") {
		t.Errorf("read: %q", got)
	}
	b.shot("read")
	b.noViolations()
	b.axe("read")
	// Not these details: a retake. A photo without the zone is refused with
	// the reason twice; after the third the details are typed.
	b.click(`[data-action=read-retake]`)
	b.waitFor(`!document.getElementById('step-capture').hidden && document.getElementById('capture-title').textContent === 'Photo page of your passport'`)
	for try := 2; try <= 3; try++ {
		b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{coffee}))
		b.waitFor(fmt.Sprintf(`document.getElementById('capture-error').textContent.indexOf('try %d of 3') >= 0`, try))
		if try == 2 {
			b.shot("retake-hint")
		}
	}
	b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{coffee}))
	b.step("details")
	if !eval[bool](b, `!document.getElementById('mrz-example-td3').hidden && document.getElementById('mrz-example-td1').hidden`) {
		t.Error("passport: the 2-line MRZ example is not the one shown")
	}
	// Nothing typed and a mistyped MRZ: each field says what is wrong,
	// and the focus goes to the first.
	b.paste("doc-mrz", "P<D<<MUSTERMANN«ERIKA")
	b.click(`#details-continue`)
	b.waitFor(`!document.getElementById('doc-mrz-error').hidden && document.activeElement.id === 'doc-number'`)
	for field, want := range map[string]string{
		"doc-number-error": "Enter the document number.",
		"doc-expiry-error": "Enter the expiry date.",
		"doc-mrz-error":    "The machine-readable zone may hold only letters, digits, < and line breaks.",
	} {
		if got := b.text(field); got != want {
			t.Errorf("%s: %q, want %q", field, got, want)
		}
	}
	if got := eval[string](b, `document.getElementById('doc-number').getAttribute('aria-invalid')`); got != "true" {
		t.Errorf("number aria-invalid=%q", got)
	}
	b.shot("details-errors")
	expiry := time.Now().AddDate(6, 0, 0)
	zone := td3(t, "C01X00T47", expiry)
	// Correcting a field clears its error; the notice goes with the last.
	b.do(chromedp.SendKeys(chromedp.ID("doc-number"), "C01X00T47"))
	b.waitFor(`document.getElementById('doc-number-error').hidden && !document.getElementById('details-error').hidden`)
	b.typeDate("doc-expiry", expiry)
	b.paste("doc-mrz", zone)
	b.waitFor(`document.getElementById('doc-mrz-error').hidden && document.getElementById('details-error').hidden`)
	b.shot("details")
	b.click(`#details-continue`)

	b.step("review")
	b.waitFor(`(function () { var imgs = document.querySelectorAll('#review-list img');
  return imgs.length === 1 && imgs[0].complete && imgs[0].naturalWidth > 0; })()`)
	if got := b.text("review-list"); !strings.Contains(got, "C01X00T47") || !strings.Contains(got, "Machine-readable zone") ||
		!strings.Contains(got, "Entered") {
		t.Errorf("review: %q", got)
	}
	b.shot("review")
	// Edit from the review: the details step with what was typed, and
	// back to the review on Continue.
	b.click(`[data-action=edit-details]`)
	b.step("details")
	if got := eval[string](b, `document.getElementById('doc-mrz').value`); got != zone {
		t.Errorf("MRZ after edit: %q", got)
	}
	b.click(`#details-continue`)
	b.step("review")
	b.click(`#submit`)
	b.step("done")
	if got := eval[bool](b, `document.getElementById('redirect-link') === null`); !got {
		t.Error("done step links back although the request has no redirectUrl")
	}
	b.shot("done")
	b.noViolations()

	// Opening the link again shows that it was submitted.
	b.do(chromedp.Navigate(link))
	b.waitFor(`document.getElementById('state') && document.getElementById('state').dataset.state === 'done'`)
	b.shot("link-used")
	b.do(chromedp.Navigate(s.srv.URL + "/portal/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"))
	b.waitFor(`document.getElementById('state') && document.getElementById('state').dataset.state === 'notfound'`)
	b.shot("unknown-link")

	caps, err := s.st.FindCaptures(t.Context(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 1 || caps[0].Method != "upload" || caps[0].Width != 600 || *caps[0].DocumentType != "passport" {
		t.Fatalf("captures: %+v", caps)
	}
	s.wantDocument(id, kyc.DocumentData{DocumentType: "passport", IssuingCountry: "DE", DocumentNumber: "C01X00T47",
		ExpiryDate: expiry.Format(time.DateOnly), MRZ: zone})
	s.runJobs()
	if st := s.status(id); st != kyc.KYCAwaitingReview {
		t.Fatalf("status after processing=%s, want awaiting_review", st)
	}
	s.wantWebhooks(id, kyc.EventKYCCreated, kyc.EventKYCPortalLinkReady, kyc.EventKYCSubmitted,
		kyc.EventKYCProcessing, kyc.EventKYCAwaitingReview)
}
