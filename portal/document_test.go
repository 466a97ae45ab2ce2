package portal_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"kycd/internal/realdata"
	"kycd/kyc"
	"kycd/mrz"
	"kycd/store"
	"kycd/verification"
)

// document posts the document form as JSON.
func (e *env) document(token string, body string, header ...string) *response {
	e.t.Helper()
	return e.do("POST", "/portal/"+token+"/document", strings.NewReader(body),
		append([]string{"Content-Type", "application/json"}, header...)...)
}

// mustDocument confirms plausible details of a German identity card.
func (e *env) mustDocument(token string) {
	e.t.Helper()
	if r := e.document(token, `{"documentType":"id_card","issuingCountry":"DE","documentNumber":"L01X00T47","expiryDate":"2031-04-30"}`); r.status != 200 {
		e.t.Fatalf("document: %d %s", r.status, r.body)
	}
}

// td3 is a passport MRZ for Erika Mustermann (the German specimen's
// name and birth date) with the given number and expiry, its check digits
// computed, so that it verifies whatever the year.
func td3(t *testing.T, number string, expiry time.Time) string {
	t.Helper()
	num := (number + "<<<<<<<<<")[:9]
	num += string(mrz.CheckDigit(num))
	dob := "640812" + string(mrz.CheckDigit("640812"))
	exp := expiry.Format("060102")
	exp += string(mrz.CheckDigit(exp))
	personal := strings.Repeat("<", 14) + "<"
	line2 := num + "D<<" + dob + "F" + exp + personal
	line2 += string(mrz.CheckDigit(num + dob + exp + personal))
	text := "P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<\n" + line2
	d, err := mrz.Parse(text, time.Now())
	if err != nil || !d.Valid || d.ExpiryDate != expiry.Format(time.DateOnly) {
		t.Fatalf("test MRZ %q does not verify: %v %+v", text, err, d)
	}
	return text
}

// TestDocumentSet stores what the applicant confirmed, answers with it
// (MRZ as a flag only), tidies the MRZ's line breaks, and replaces the
// details on a second post.
func TestDocumentSet(t *testing.T) {
	e := newEnv(t)
	token, req := e.create(kyc.WorkflowStandard, "")
	zone := td3(t, "C01X00T47", time.Now().AddDate(5, 0, 0))
	body, err := json.Marshal(map[string]string{"documentType": "passport", "issuingCountry": "DE",
		"documentNumber": " C01X00T47 ", "expiryDate": time.Now().AddDate(5, 0, 0).Format(time.DateOnly),
		"mrz": "\r\n" + strings.ReplaceAll(zone, "\n", " \r\n") + "\r\n\r\n"})
	if err != nil {
		t.Fatal(err)
	}
	r := e.document(token, string(body))
	if r.status != 200 {
		t.Fatalf("status=%d, want 200: %s", r.status, r.body)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"documentType": "passport", "issuingCountry": "DE", "documentNumber": "C01X00T47",
		"expiryDate": time.Now().AddDate(5, 0, 0).Format(time.DateOnly), "hasMrz": true, "fromDocument": false}
	if len(got) != len(want) {
		t.Errorf("answer=%s, want the fields of %v", r.body, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("answer %s=%v, want %v", k, got[k], v)
		}
	}
	stored := e.request(req.ID)
	if d := stored.DocumentData; d == nil || d.MRZ != zone || d.DocumentNumber != "C01X00T47" || d.DocumentType != "passport" {
		t.Fatalf("stored: %+v", d)
	}
	// Setting the details opened the link, as an upload does.
	if stored.Status != kyc.KYCLinkGenerated || stored.PortalOpenedAt == nil {
		t.Errorf("status=%s portalOpenedAt=%v, want link_generated and opened", stored.Status, stored.PortalOpenedAt)
	}

	// A second post (the applicant edits from the review) replaces it; an
	// expired document is the engine's to judge, not the portal's.
	r = e.document(token, `{"documentType":"driving_licence","issuingCountry":"AT","documentNumber":"12345678","expiryDate":"2012-04-15","mrz":"  "}`)
	if r.status != 200 || !strings.Contains(r.body, `"hasMrz":false`) {
		t.Fatalf("second post: %d %s", r.status, r.body)
	}
	if d := e.request(req.ID).DocumentData; d.DocumentType != "driving_licence" || d.MRZ != "" || d.ExpiryDate != "2012-04-15" {
		t.Errorf("after the second post: %+v", d)
	}
}

// TestDocumentFields refuses every bad field at once, named as the form
// sends it, and leaves what was stored alone.
func TestDocumentFields(t *testing.T) {
	e := newEnv(t)
	token, req := e.create(kyc.WorkflowStandard, "")
	for _, tt := range []struct {
		name, body string
		status     int
		want       string // detail fields, in order
	}{
		{"everything wrong",
			`{"documentType":"library_card","issuingCountry":"de","documentNumber":" - ","expiryDate":"30.04.2031","mrz":"P«UTO"}`,
			400, "documentType,issuingCountry,documentNumber,expiryDate,mrz"},
		{"nothing sent", `{}`, 400, "documentType,issuingCountry,documentNumber,expiryDate"},
		{"impossible date", `{"documentType":"id_card","issuingCountry":"DE","documentNumber":"L01X00T47","expiryDate":"2031-02-30"}`,
			400, "expiryDate"},
		{"overlong number", `{"documentType":"id_card","issuingCountry":"DE","documentNumber":"` + strings.Repeat("A1", 16) + `","expiryDate":"2031-04-30"}`,
			400, "documentNumber"},
		{"overlong MRZ", `{"documentType":"passport","issuingCountry":"DE","documentNumber":"C01X00T47","expiryDate":"2031-04-30","mrz":"` +
			strings.Repeat(strings.Repeat("<", 44)+`\n`, 5) + `"}`, 400, "mrz"},
		{"MRZ on a licence", `{"documentType":"driving_licence","issuingCountry":"DE","documentNumber":"B072RRE2I55","expiryDate":"2031-04-30","mrz":"P<D<<X"}`,
			400, "mrz"},
		{"unknown and mistyped fields", `{"documentType":"id_card","issuingCountry":"DE","documentNumber":123,"expiryDate":"2031-04-30","admin":true}`,
			400, "admin,documentNumber"},
		{"not an object", `["id_card"]`, 400, "body"},
		{"trailing data", `{"documentType":"id_card"} {}`, 400, "body"},
		{"not JSON", `documentType=id_card`, 400, "body"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.document(token, tt.body)
			if r.status != tt.status {
				t.Fatalf("status=%d, want %d: %s", r.status, tt.status, r.body)
			}
			env := r.envelope(t)
			if env.Error.Code != kyc.EValidation || env.Error.Type != "validation" || env.fields() != tt.want {
				t.Errorf("code=%s details=%s, want %s: %s", env.Error.Code, env.fields(), tt.want, r.body)
			}
			for _, d := range env.Error.Details {
				if d.Message == "" || strings.Contains(d.Message, "json") {
					t.Errorf("detail %+v", d)
				}
			}
		})
	}
	if d := e.request(req.ID).DocumentData; d != nil {
		t.Errorf("refused posts stored %+v", d)
	}
}

// TestDocumentBody refuses a body that is not JSON (415) or too large
// (413) before looking at it.
func TestDocumentBody(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowStandard, "")
	valid := `{"documentType":"id_card","issuingCountry":"DE","documentNumber":"L01X00T47","expiryDate":"2031-04-30"}`
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
		r := e.do("POST", "/portal/"+token+"/document", strings.NewReader(valid), "Content-Type", ct)
		if r.status != 415 {
			t.Errorf("Content-Type %q: %d %s", ct, r.status, r.body)
			continue
		}
		if env := r.envelope(t); env.Error.Code != kyc.EValidation || env.fields() != "body" {
			t.Errorf("Content-Type %q: %s", ct, r.body)
		}
	}
	if r := e.document(token, valid, "Content-Type", "application/json; charset=utf-8"); r.status != 200 {
		t.Errorf("with charset: %d %s", r.status, r.body)
	}
	big := `{"documentType":"id_card","mrz":"` + strings.Repeat("<", 16<<10) + `"}`
	r := e.document(token, big)
	if r.status != 413 {
		t.Fatalf("too large: %d %s", r.status, r.body)
	}
	if env := r.envelope(t); env.Error.Code != kyc.EValidation || env.fields() != "body" {
		t.Errorf("too large: %s", r.body)
	}
}

// TestDocumentLinks answers as the other endpoints do: 404 for a token
// that does not exist, 410 with the link's state as reason for one that
// cannot be used (whatever the body), 403 for a post from another site.
func TestDocumentLinks(t *testing.T) {
	e := newEnv(t)
	valid := `{"documentType":"id_card","issuingCountry":"DE","documentNumber":"L01X00T47","expiryDate":"2031-04-30"}`
	token, _ := e.create(kyc.WorkflowDocumentOnly, "")
	if r := e.document(token, valid, "Sec-Fetch-Site", "cross-site"); r.status != 403 || r.envelope(t).Error.Code != kyc.EForbidden {
		t.Errorf("cross-site: %d %s", r.status, r.body)
	}
	for _, tok := range []string{"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "not-a-token"} {
		if r := e.document(tok, valid); r.status != 404 || r.envelope(t).Error.Code != kyc.ENotFound {
			t.Errorf("token %s: %d %s", tok, r.status, r.body)
		}
	}

	if r := e.upload(token, doc("front", "passport"), photo(t, 400, 300)); r.status != 201 {
		t.Fatal(r.body)
	}
	e.mustDocument(token)
	if r := e.do("POST", "/portal/"+token+"/submit", nil); r.status != 200 {
		t.Fatalf("submit: %d %s", r.status, r.body)
	}
	if r := e.document(token, valid); r.status != 410 || r.envelope(t).Error.Reason != "done" {
		t.Errorf("after submission: %d %s", r.status, r.body)
	}

	cancelled, cr := e.create(kyc.WorkflowStandard, "")
	err := e.st.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := e.svc.Cancel(tx, e.org.ID, kyc.Sandbox, cr.ID, verification.Actor{Type: kyc.ActorAPIKey}, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := e.document(cancelled, `{}`); r.status != 410 || r.envelope(t).Error.Reason != "cancelled" {
		t.Errorf("cancelled, invalid body: %d %s", r.status, r.body)
	}
	expired, _ := e.create(kyc.WorkflowStandard, "")
	e.expire()
	if r := e.document(expired, valid); r.status != 410 || r.envelope(t).Error.Reason != "expired" {
		t.Errorf("expired: %d %s", r.status, r.body)
	}
}

// TestDocumentFromRead: a document photo's upload answers with what the
// server read from its zone; confirming it (captureId) stores the number,
// expiry and zone read from the photo, whatever the page sends beside; a
// photo that is not this request's document, or whose zone was not read,
// is refused on captureId.
func TestDocumentFromRead(t *testing.T) {
	card, err := os.ReadFile(realdata.Path(t, "images/doc_td2_uto_icao_specimen.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	token, req := e.create(kyc.WorkflowStandard, "")
	r := e.upload(token, doc("front", "passport"), card)
	var got struct {
		ID  string
		MRZ struct{ Status, Surname, GivenNames, DocumentNumber, BirthDate, ExpiryDate string }
	}
	if r.status != 201 || json.Unmarshal([]byte(r.body), &got) != nil {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	if got.MRZ.Status != "read" || got.MRZ.Surname != "ERIKSSON" || got.MRZ.GivenNames != "ANNA MARIA" || got.MRZ.DocumentNumber != "D23145890" ||
		got.MRZ.BirthDate != "1974-08-12" || got.MRZ.ExpiryDate != "2012-04-15" {
		t.Fatalf("read at upload: %s", r.body)
	}
	// The page sends other details beside the capture: the photo wins.
	r = e.document(token, `{"documentType":"passport","issuingCountry":"SE","documentNumber":"X1","expiryDate":"2031-04-15","captureId":"`+got.ID+`"}`)
	if r.status != 200 || !strings.Contains(r.body, `"fromDocument":true`) {
		t.Fatalf("confirm: %d %s", r.status, r.body)
	}
	d := e.request(req.ID).DocumentData
	if d == nil || d.DocumentNumber != "D23145890" || d.ExpiryDate != "2012-04-15" || !strings.HasPrefix(d.MRZ, "I<UTOERIKSSON<<ANNA<MARIA") {
		t.Fatalf("stored: %+v", d)
	}
	// A selfie is no document photo; a plain photo has no zone.
	sr := e.upload(token, map[string]string{"kind": "selfie", "method": "camera"}, photo(t, 640, 480))
	var selfie struct{ ID string }
	json.Unmarshal([]byte(sr.body), &selfie)
	for _, id := range []string{selfie.ID, "cap_unknown"} {
		if r := e.document(token, `{"documentType":"passport","issuingCountry":"SE","captureId":"`+id+`"}`); r.status != 400 || !strings.Contains(r.body, `"captureId"`) {
			t.Errorf("captureId %s: %d %s", id, r.status, r.body)
		}
	}
	plain := e.upload(token, doc("front", "passport"), photo(t, 800, 560))
	var p struct{ ID string }
	json.Unmarshal([]byte(plain.body), &p)
	if r := e.document(token, `{"documentType":"passport","issuingCountry":"SE","captureId":"`+p.ID+`"}`); r.status != 400 || !strings.Contains(r.body, "could not be read") {
		t.Errorf("unread photo: %d %s", r.status, r.body)
	}
}
