package portal

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"kycd/capture"
	"kycd/kyc"
	"kycd/liveness"
	"kycd/locale"
)

// TestCountryList offers every code the service accepts, each once, named
// and in reading order, in every language.
func TestCountryList(t *testing.T) {
	var lists countryLists
	for _, c := range locale.All() {
		list := lists.of(c)
		if len(list) != 250 {
			t.Errorf("%s: countries=%d, want 250", c.Tag(), len(list))
		}
		for i, ctry := range list {
			if ctry.Name == ctry.Code {
				t.Errorf("%s: entry %d unnamed: %+v", c.Tag(), i, ctry)
			}
		}
	}
	list := lists.of(locale.Get("en"))
	if len(list) != 250 {
		t.Errorf("countries=%d, want 250 (249 ISO codes and XK)", len(list))
	}
	seen := map[string]bool{}
	pos := map[string]int{}
	for i, c := range list {
		if !kyc.ValidCountry(c.Code) || seen[c.Code] || c.Name == c.Code {
			t.Errorf("entry %d: %+v", i, c)
		}
		seen[c.Code] = true
		pos[c.Name] = i
	}
	for _, order := range [][2]string{{"Afghanistan", "Åland Islands"}, {"Åland Islands", "Albania"},
		{"Cuba", "Curaçao"}, {"Curaçao", "Cyprus"}, {"Germany", "Ghana"}} {
		if pos[order[0]] >= pos[order[1]] {
			t.Errorf("%s is not before %s", order[0], order[1])
		}
	}
	// German collation puts Ö with O (Oman, Österreich); Russian sorts
	// in Cyrillic order (Грузия before Египет), not by transliteration.
	for tag, order := range map[string][2]string{"de": {"OM", "AT"}, "ru": {"GE", "EG"}} {
		pos := map[string]int{}
		for i, c := range lists.of(locale.Get(tag)) {
			pos[c.Code] = i
		}
		if pos[order[0]] >= pos[order[1]] {
			t.Errorf("%s: %s is not before %s", tag, order[0], order[1])
		}
	}
}

// TestTokenParam refuses what cannot be a token before any lookup.
func TestTokenParam(t *testing.T) {
	for tok, ok := range map[string]bool{
		"AbCdEfGhIjKlMnOpQrStUvWxYz012345": true,
		"short":                            false,
		"AbCdEfGhIjKlMnOp-rStUvWxYz012345": false,
		"AbCdEfGhIjKlMnOpQrStUvWxYz01234%": false,
		string(make([]byte, 200)):          false,
	} {
		r := &http.Request{}
		r.SetPathValue("token", tok)
		if _, err := tokenParam(r); (err == nil) != ok {
			t.Errorf("tokenParam(%q): %v", tok, err)
		}
	}
}

// TestDocumentTypes shows exactly the documents the service accepts, with
// the service's answer to whether each has a back, and which carry an MRZ.
func TestDocumentTypes(t *testing.T) {
	if len(documentTypes) != len(kyc.DocumentTypes) {
		t.Errorf("page offers %d documents, service accepts %d", len(documentTypes), len(kyc.DocumentTypes))
	}
	for _, d := range documentTypes {
		if back, ok := kyc.DocumentTypes[d.Value]; !ok || back != d.HasBack || !locale.Get("en").Has("doc."+d.Value) {
			t.Errorf("%+v: service has %v %v", d, back, ok)
		}
		// The documents with an ICAO 9303 MRZ, as the decision engine
		// expects one (decision.mrzDocuments).
		if want := d.Value != "driving_licence"; d.HasMRZ != want {
			t.Errorf("%s: HasMRZ=%v, want %v", d.Value, d.HasMRZ, want)
		}
	}
}

// TestBusyUpload: when the decoding gate has no room, the upload is
// answered 503 in the envelope with Retry-After, and the catalog's message
// for the applicant in their language (capture's English one is replaced).
func TestBusyUpload(t *testing.T) {
	p := &portal{log: slog.New(slog.DiscardHandler)}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/portal/x/captures?lang=de", nil)
	p.writeAPIError(rec, req, imageError(&capture.Error{Code: capture.EBusy, Message: "Busy now."}))
	var body errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "3" || body.Error.Code != kyc.EUnavailable ||
		body.Error.Type != "unavailable" || body.Error.Reason != capture.EBusy || body.Error.Message != locale.Get("de").T("error.busy") {
		t.Errorf("%d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
}

// FuzzParseSteps: the steps field of a frames upload is the page's word;
// any text either parses to steps within the challenge's range or is an
// error, never a panic.
func FuzzParseSteps(f *testing.F) {
	for _, s := range []string{"0,0,1,1,2,2", "", ",", "-1", "0, 3", "99999999999999999999", "0,0,1,1,2,2,3,3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		steps, err := parseSteps(s)
		if err != nil {
			return
		}
		for _, n := range steps {
			if n < 0 || n > liveness.MaxMoves {
				t.Fatalf("parseSteps(%q) = %v", s, steps)
			}
		}
	})
}
