package server_test

import (
	"net/http"
	"slices"
	"testing"
)

// TestDocumentTypes: GET /v1/document-types lists what is read
// automatically and what goes to a reviewer, per country when asked; a
// country that is not a code is refused.
func TestDocumentTypes(t *testing.T) {
	e := newAPIEnv(t)
	kinds := func(query string) []map[string]any {
		t.Helper()
		r := e.call("GET", "/v1/document-types"+query, e.A.SandboxKey, "")
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", query, r.status, r.body)
		}
		var out []map[string]any
		for _, k := range r.json(t)["data"].([]any) {
			out = append(out, k.(map[string]any))
		}
		return out
	}
	licence := func(ks []map[string]any) map[string]any {
		for _, k := range ks {
			if k["documentType"] == "driving_licence" {
				return k
			}
		}
		return nil
	}
	us := kinds("?country=US")
	if l := licence(us); l == nil || l["reading"] != "automatic" || l["source"] != "pdf417_aamva" || l["country"] != "US" ||
		!slices.Contains(l["jurisdictions"].([]any), any("CA")) {
		t.Errorf("US licence: %v", l)
	}
	if len(us) != 4 {
		t.Errorf("US: %d kinds, want one per document type: %v", len(us), us)
	}
	if l := licence(kinds("?country=DE")); l == nil || l["reading"] != "reviewer" || l["source"] != "none" {
		t.Errorf("German licence: %v", l)
	}
	for _, k := range kinds("?country=DE") {
		if k["documentType"] == "passport" && (k["reading"] != "automatic" || k["source"] != "mrz") {
			t.Errorf("passport: %v", k)
		}
	}
	if n := len(kinds("")); n != 8 {
		t.Errorf("all: %d kinds", n)
	}
	for _, q := range []string{"?country=XX", "?country=us", "?country=USA"} {
		if r := e.call("GET", "/v1/document-types"+q, e.A.SandboxKey, ""); r.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", q, r.status, r.body)
		}
	}
	if r := e.call("GET", "/v1/document-types", "", ""); r.status != http.StatusUnauthorized {
		t.Errorf("without a key: %d", r.status)
	}
}
