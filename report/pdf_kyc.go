package report

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteKYCPDF renders a KYC request's report as an A4 PDF. Page 1 opens
// with a summary (the outcome and its reason, who decided, the engine's
// recommendation, the screening at a glance, and every finding a reviewer
// must look at and every check that did not run); the details follow:
// organization and environment, the request and its outcome, the
// applicant, the
// automated decision, the document, the captured images with their
// hashes, the screening results, the signals and reasons, the timeline,
// the reviewer notes and the report's own hash. Every page names the
// request and carries the first 16 hex digits of ContentSHA256; sandbox
// reports say "SANDBOX — not a real decision" on every page. The same
// report always renders to the same bytes.
func WriteKYCPDF(w io.Writer, rep *KYCReport) error {
	if rep == nil {
		return errors.New("write kyc pdf: no report")
	}
	// Scaling the images is most of the work; it runs while the text
	// sections are laid out.
	thumbsDone := make(chan []thumb, 1)
	go func() { thumbsDone <- makeThumbs(rep.Captures, rep.Thumbnails, rep.masked()) }()

	footer := "Request " + rep.Request.ID + " · SHA-256 " + hashPrefix(rep.ContentSHA256)
	d, err := newDoc("KYC compliance report", rep.Request.PublicID, rep.GeneratedAt, footer, rep.Sandbox)
	if err != nil {
		return fmt.Errorf("write kyc pdf: %w", err)
	}
	if err := kycSummary(d, rep); err != nil {
		return fmt.Errorf("write kyc pdf: %w", err)
	}
	kycOverview(d, rep)
	kycDocument(d, rep)
	kycDocumentRead(d, rep)
	// Each heading keeps its first block with it: the first image with
	// its facts, the first list's title and lines.
	d.section("Captured images", d.firstCaptureHeight(rep.Captures))
	d.captures(rep.Captures, <-thumbsDone)
	kycResubmissions(d, rep)
	kycLiveness(d, rep.LivenessSessions)
	d.section("Screening results", d.screeningsHeight(rep.Screenings))
	d.screenings(rep.Screenings)
	if err := kycSignals(d, rep.Signals, rep.Captures); err != nil {
		return fmt.Errorf("write kyc pdf: %w", err)
	}
	if err := kycReasons(d, rep.Reasons); err != nil {
		return fmt.Errorf("write kyc pdf: %w", err)
	}
	kycTimeline(d, rep.Timeline)
	kycNotes(d, rep.ReviewerNotes)
	kycIntegrity(d, rep)
	if err := d.finish(w); err != nil {
		return fmt.Errorf("write kyc pdf: %w", err)
	}
	return nil
}

func kycOverview(d *doc, rep *KYCReport) {
	d.section("Organization and environment")
	t := d.kvTable()
	t.kv("Organization", rep.Organization.Name, false)
	t.kv("Organization id", rep.Organization.ID, true)
	env := orNone(rep.Environment)
	if rep.Sandbox {
		env += " (SANDBOX — not a real decision)"
	}
	t.kv("Environment", env, false)
	t.kv("Personal data", personalDataText(rep.PersonalData), false)
	t.end()

	r := &rep.Request
	d.section("Request")
	t = d.kvTable()
	t.kv("Request id", r.ID, true)
	t.kv("Public id", r.PublicID, true)
	t.kv("Status", orNone(r.Status), false)
	if r.Attempt > 1 {
		t.kv("Attempt", strconv.Itoa(r.Attempt)+" (see Resubmissions)", false)
	}
	t.kv("Decision", orNone(r.Decision), false)
	t.kv("Decision reason", optStr(r.DecisionReason), false)
	t.kv("Workflow", orNone(r.WorkflowType), false)
	t.kv("External reference", optStr(r.ExternalRef), false)
	t.kv("Created", orNone(r.CreatedAt), false)
	t.kv("Submitted", optStr(r.SubmittedAt), false)
	t.kv("Decided", optStr(r.DecidedAt), false)
	t.kv("Portal link expires", orNone(r.PortalExpiresAt), false)
	t.kv("Portal link opened", optStr(r.PortalOpenedAt), false)
	t.end()

	a := &rep.Applicant
	d.section("Applicant")
	t = d.kvTable()
	t.kv("Name", orNone(strings.TrimSpace(a.FirstName+" "+a.LastName)), false)
	t.kv("First name", orNone(a.FirstName), false)
	t.kv("Last name", orNone(a.LastName), false)
	t.kv("Applicant id", a.ID, true)
	t.kv("Public id", a.PublicID, true)
	t.kv("Date of birth", optStr(a.DOB), false)
	t.kv("Country", optStr(a.Country), false)
	t.kv("Email", optStr(a.Email), false)
	t.kv("Phone", optStr(a.Phone), false)
	t.kv("External reference", optStr(a.ExternalRef), false)
	t.end()

	au := &rep.Automation
	d.section("Automated decision")
	t = d.kvTable()
	t.kv("Decision", optStr(au.Decision), false)
	t.kv("Confidence", optNum(au.Confidence, 3), false)
	t.kv("Risk score", optNum(au.RiskScore, 1), false)
	t.kv("Engine", optStr(au.Engine), false)
	t.kv("Engine version", optStr(au.EngineVersion), false)
	t.kv("Policy version", optStr(au.PolicyVersion), false)
	t.end()
}

func kycDocument(d *doc, rep *KYCReport) {
	d.section("Document details")
	dd := rep.DocumentData
	if dd == nil {
		d.para("No document details were recorded.", regular, 9)
		return
	}
	t := d.kvTable()
	t.kv("Document type", orNone(dd.DocumentType), false)
	t.kv("Issuing country", orNone(dd.IssuingCountry), false)
	t.kv("Document number", orNone(dd.DocumentNumber), true)
	t.kv("Expiry date", orNone(dd.ExpiryDate), false)
	if rep.masked() {
		t.kv("MRZ", "left out: this organization's reports mask personal data", false)
	} else {
		t.kv("MRZ", orNone(dd.MRZ), true)
	}
	t.end()
}

// kycDocumentRead shows what the document itself says, as kycd read it
// from the document photo (the document_data signal), and how it compared
// with the applicant (data_consistency): the source of truth, beside the
// details the applicant confirmed above.
func kycDocumentRead(d *doc, rep *KYCReport) {
	d.section("What the document says")
	data := signalData(rep, "document_data")
	if data == nil {
		d.para("The document was not read: no automated check ran.", regular, 9)
		return
	}
	t := d.kvTable()
	switch data["source"] {
	case "document_image":
		t.kv("Source", "Read by kycd from the document photo "+text(data["captureId"]), false)
	default:
		t.kv("Source", "Not read from the document: only the details the applicant typed (not verified)", false)
	}
	if m, ok := data["mrz"].(map[string]any); ok {
		t.kv("Surname", text(m["surname"]), false)
		t.kv("Given names", text(m["givenNames"]), false)
		t.kv("Date of birth", text(m["birthDate"]), false)
		n := readNumber(rep, text(m["documentNumber"]))
		t.kv("Document number", n, !strings.Contains(n, " ("))
		t.kv("Nationality", text(m["nationality"]), false)
		t.kv("Issuing state", text(m["issuingState"]), false)
		t.kv("Expiry date", orNone(text(m["expiryDate"])), false)
		valid := "all verify"
		if m["checkDigitsValid"] != true {
			valid = "some do not verify"
		}
		t.kv("Check digits", valid, false)
	}
	if m, ok := data["document"].(map[string]any); ok {
		// A driving licence or identity card read from its PDF417 barcode.
		bc, _ := data["barcode"].(map[string]any)
		t.kv("Surname", text(m["surname"]), false)
		t.kv("Given names", text(m["givenNames"]), false)
		t.kv("Date of birth", text(m["birthDate"]), false)
		t.kv("Document number", text(m["documentNumber"]), true)
		t.kv("Issued by", text(bc["issuerName"])+" ("+text(bc["issuer"])+")", false)
		t.kv("Expiry date", orNone(text(m["expiryDate"])), false)
		t.kv("Barcode", "PDF417, "+text(bc["standard"])+" version "+text(bc["version"])+"; header and fields validate; "+
			text(bc["codewordsCorrected"])+" codewords corrected", false)
	}
	t.end()
	cmp := signalData(rep, "data_consistency")
	list, _ := cmp["comparisons"].([]any)
	if len(list) == 0 {
		d.para("Nothing read from the document was compared with the applicant.", regular, 9)
		return
	}
	t = d.kvTable()
	for _, x := range list {
		c, _ := x.(map[string]any)
		field := text(c["field"])
		line := text(c["result"]) + ": document " + orNone(comparedValue(rep, field, "document", text(c["document"]))) +
			", applicant " + orNone(comparedValue(rep, field, "applicant", text(c["applicant"])))
		if det := text(c["detail"]); det != "" {
			line += " (" + det + ")"
		}
		t.kv("Compared: "+text(c["field"]), line, false)
	}
	t.end()
}

// signalData is the data of the request-level signal name, nil without it.
func signalData(rep *KYCReport, name string) map[string]any {
	for _, s := range rep.Signals {
		if m, ok := s.(map[string]any); ok && m["name"] == name {
			data, _ := m["data"].(map[string]any)
			if data == nil {
				data = map[string]any{}
			}
			return data
		}
	}
	return nil
}

// text is a JSON value as text ("" for none).
func text(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// kycIntegrity closes the report with what it was computed by and the
// hash that identifies it.
func kycIntegrity(d *doc, rep *KYCReport) {
	d.section("Report integrity")
	t := d.kvTable()
	t.kv("Schema version", orNone(rep.SchemaVersion), false)
	t.kv("Engine version", optStr(rep.Automation.EngineVersion), false)
	t.kv("Policy version", optStr(rep.Automation.PolicyVersion), false)
	t.kv("Generated", orNone(rep.GeneratedAt), false)
	t.kv("Content SHA-256", orNone(rep.ContentSHA256), true)
	t.kv("Captures", strconv.Itoa(len(rep.Captures)), false)
	t.kv("Timeline events", strconv.Itoa(len(rep.Timeline)), false)
	t.end()
	d.para("The content SHA-256 is computed over the report's JSON form with the contentSha256 member empty; "+
		"it identifies this report's content and is printed, first 16 hex digits, at the foot of every page.", regular, 8)
	d.para(scriptLegend, regular, 8)
}
