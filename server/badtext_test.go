package server_test

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"kycd/server"
	"kycd/store/storetest"
)

// badText is what a client can put in a path id or a query parameter that
// no engine stores: NUL and bytes that are not UTF-8 (a lone byte, a
// broken sequence, an encoded surrogate), alone and inside a plausible id.
var badText = []string{"%00", "app_%00", "%FF", "kyc_%C3%28", "%ED%A0%80", "a%00b%FF"}

// TestBadTextEveryRoute walks every operation of the description with
// each bad value in each path parameter and each string query parameter,
// on both engines: never a 500, always the envelope (call checks it and
// the description). Issue 23 item 4: PostgreSQL answered 500 on the
// webhook and delivery routes where SQLite answered 404/400.
func TestBadTextEveryRoute(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(server.OpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, engine := range storetest.Engines {
		t.Run(engine, func(t *testing.T) {
			e := newAPIEnvOn(t, engine)
			calls := 0
			for _, p := range paths {
				for method, op := range doc.Paths.Value(p).Operations() {
					if strings.HasPrefix(p, "/console") || strings.HasPrefix(p, "/portal") {
						continue
					}
					var pathParams, queryParams []string
					for _, prm := range op.Parameters {
						switch v := prm.Value; v.In {
						case "path":
							pathParams = append(pathParams, v.Name)
						case "query":
							if s := v.Schema.Value; s == nil || s.Type.Is("string") || s.Type.Includes("string") {
								queryParams = append(queryParams, v.Name)
							}
						}
					}
					for _, prm := range doc.Paths.Value(p).Parameters {
						if prm.Value.In == "path" {
							pathParams = append(pathParams, prm.Value.Name)
						}
					}
					send := func(path string) {
						t.Helper()
						calls++
						body := ""
						if method == http.MethodPost || method == http.MethodPatch {
							body = "{}"
						}
						r := e.call(method, path, e.A.SandboxKey, body, "Idempotency-Key", "bad-text-"+url.QueryEscape(path))
						if r.status >= 500 {
							t.Errorf("%s %s → %d %s", method, path, r.status, r.body)
						}
					}
					plain := p
					for _, name := range pathParams {
						plain = strings.ReplaceAll(plain, "{"+name+"}", "x")
					}
					for _, bad := range badText {
						for _, name := range pathParams {
							path := p
							for _, other := range pathParams {
								v := "x"
								if other == name {
									v = bad
								}
								path = strings.ReplaceAll(path, "{"+other+"}", v)
							}
							send(path)
						}
						for _, name := range queryParams {
							send(plain + "?" + name + "=" + bad)
						}
					}
				}
			}
			// The portal's link token is a path id too (no API key).
			for _, bad := range badText {
				for _, p := range []string{"/portal/" + bad, "/portal/" + bad + "/documents", "/v1/files/" + bad + "?expires=1&signature=00"} {
					calls++
					if r := e.call("GET", p, "", ""); r.status >= 500 {
						t.Errorf("GET %s → %d", p, r.status)
					}
				}
			}
			if calls < 100 {
				t.Fatalf("only %d calls: the walk missed the description's routes", calls)
			}
		})
	}
}

// TestNULInBodies: a NUL (\u0000) in any text of a JSON body is a 400
// naming the field on both engines; PostgreSQL answered 500 where a field
// had no check of its own (a KYC request's externalRef).
func TestNULInBodies(t *testing.T) {
	for _, engine := range storetest.Engines {
		t.Run(engine, func(t *testing.T) {
			e := newAPIEnvOn(t, engine)
			for _, c := range []struct{ path, body, field string }{
				{"/v1/kyc-requests", `{"applicant":{"firstName":"A","lastName":"B"},"externalRef":"r\u0000"}`, "externalRef"},
				{"/v1/kyc-requests", `{"applicant":{"firstName":"A","lastName":"B"},"metadata":{"k":"\u0000"}}`, "metadata.k"},
				{"/v1/applicants", `{"firstName":"A","lastName":"B","metadata":{"k\u0000":1}}`, "metadata.k"},
				{"/v1/aml-checks", `{"firstName":"A\u0000","lastName":"B"}`, "firstName"},
			} {
				r := e.call("POST", c.path, e.A.SandboxKey, c.body)
				if r.status != 400 || !strings.Contains(string(r.body), `"field":"`+c.field+`"`) {
					t.Errorf("%s %s → %d %s", c.path, c.body, r.status, r.body)
				}
			}
		})
	}
}
