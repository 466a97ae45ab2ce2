package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const ada = `{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com","phone":"+447700900123","dob":"1990-12-10","country":"GB","externalRef":"c-42","metadata":{"plan":"gold","n":12345678901234567890}}`

// mustCreate creates an applicant and returns its JSON.
func (e *apiEnv) mustCreate(key, body string) map[string]any {
	e.t.Helper()
	r := e.call("POST", "/v1/applicants", key, body)
	if r.status != http.StatusCreated {
		e.t.Fatalf("create applicant: %d %s", r.status, r.body)
	}
	return r.json(e.t)
}

func TestApplicantCreateAndGet(t *testing.T) {
	e := newAPIEnv(t)
	a := e.mustCreate(e.A.SandboxKey, ada)
	for field, want := range map[string]any{"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com",
		"phone": "+447700900123", "dob": "1990-12-10", "country": "GB", "externalRef": "c-42", "status": "active",
		"environment": "sandbox", "archivedAt": nil, "createdAt": "2026-01-02T03:04:05.000Z"} {
		if a[field] != want {
			t.Errorf("%s = %v, want %v", field, a[field], want)
		}
	}
	// Big integers in metadata come back exactly as sent.
	r := e.call("GET", "/v1/applicants/"+a["id"].(string), e.A.SandboxKey, "")
	if r.status != 200 || !strings.Contains(string(r.body), `"n":12345678901234567890`) {
		t.Fatalf("get by id: %d %s", r.status, r.body)
	}
	// The public id works as well, in any case.
	for _, id := range []string{a["publicId"].(string), "app_" + strings.ToUpper(a["publicId"].(string)[4:])} {
		if r := e.call("GET", "/v1/applicants/"+id, e.A.SandboxKey, ""); r.status != 200 || r.json(t)["id"] != a["id"] {
			t.Errorf("get by public id %s: %d %s", id, r.status, r.body)
		}
	}
}

func TestApplicantValidation(t *testing.T) {
	e := newAPIEnv(t)
	long := strings.Repeat("x", 101)
	for _, tt := range []struct {
		name       string
		body       string
		wantStatus int
		wantFields []string // every field named in details, in order
	}{
		{"empty body", ``, 400, []string{"body"}},
		{"not JSON", `{"firstName":`, 400, []string{"body"}},
		{"array", `[1,2]`, 400, []string{"body"}},
		{"two objects", `{"firstName":"A","lastName":"B"}{}`, 400, []string{"body"}},
		{"missing names", `{}`, 400, []string{"firstName", "lastName"}},
		{"blank names", `{"firstName":"  ","lastName":""}`, 400, []string{"firstName", "lastName"}},
		{"every field wrong at once",
			`{"firstName":3,"lastName":true,"email":"x","phone":"0044 77","dob":"2023-02-30","country":"gb","externalRef":{},"metadata":[],"bogus":1}`,
			400, []string{"bogus", "country", "dob", "email", "externalRef", "firstName", "lastName", "metadata", "phone"}},
		{"name too long", `{"firstName":"` + long + `","lastName":"B"}`, 400, []string{"firstName"}},
		{"control character", `{"firstName":"A\u0007","lastName":"B"}`, 400, []string{"firstName"}},
		{"dob in the future", `{"firstName":"A","lastName":"B","dob":"2027-01-01"}`, 400, []string{"dob"}},
		{"dob before 1900", `{"firstName":"A","lastName":"B","dob":"1899-12-31"}`, 400, []string{"dob"}},
		{"dob not padded", `{"firstName":"A","lastName":"B","dob":"1990-1-2"}`, 400, []string{"dob"}},
		{"country not assigned", `{"firstName":"A","lastName":"B","country":"ZZ"}`, 400, []string{"country"}},
		{"email with display name", `{"firstName":"A","lastName":"B","email":"Ada <ada@example.com>"}`, 400, []string{"email"}},
		{"email without dot in domain", `{"firstName":"A","lastName":"B","email":"ada@localhost"}`, 400, []string{"email"}},
		{"nested metadata", `{"firstName":"A","lastName":"B","metadata":{"a":{"b":1}}}`, 400, []string{"metadata.a"}},
		{"metadata key", `{"firstName":"A","lastName":"B","metadata":{"bad key":1}}`, 400, []string{"metadata.bad key"}},
		{"metadata value too long", `{"firstName":"A","lastName":"B","metadata":{"k":"` + strings.Repeat("v", 501) + `"}}`, 400, []string{"metadata.k"}},
		{"too many metadata keys", `{"firstName":"A","lastName":"B","metadata":{` + manyKeys(51) + `}}`, 400, []string{"metadata"}},
		{"body too large", `{"firstName":"A","lastName":"B","externalRef":"` + strings.Repeat("x", 1<<20) + `"}`, 413, []string{"body"}},
		{"minimal", `{"firstName":"A","lastName":"B"}`, 201, nil},
		{"Kosovo and null optionals", `{"firstName":"A","lastName":"B","country":"XK","email":null,"metadata":null}`, 201, nil},
		{"non-Latin names", `{"firstName":"Дмитрий","lastName":"Ἀλέξανδρος"}`, 201, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call("POST", "/v1/applicants", e.A.SandboxKey, tt.body)
			if r.status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.status, tt.wantStatus, r.body)
			}
			if tt.wantFields == nil {
				return
			}
			if code := r.errCode(t); code != "VALIDATION_ERROR" {
				t.Errorf("code %q, want VALIDATION_ERROR", code)
			}
			var got []string
			for _, d := range r.json(t)["error"].(map[string]any)["details"].([]any) {
				got = append(got, d.(map[string]any)["field"].(string))
			}
			if strings.Join(got, ",") != strings.Join(tt.wantFields, ",") {
				t.Errorf("details name %v, want %v (%s)", got, tt.wantFields, r.body)
			}
		})
	}
	// Nothing invalid was written: only the three valid creates exist.
	if n := e.call("GET", "/v1/applicants", e.A.SandboxKey, "").json(t)["pagination"].(map[string]any)["totalItems"]; n != float64(3) {
		t.Errorf("totalItems = %v, want 3", n)
	}
}

func manyKeys(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, fmt.Sprintf(`"k%d":%d`, i, i))
	}
	return strings.Join(parts, ",")
}

func TestApplicantPatch(t *testing.T) {
	e := newAPIEnv(t)
	a := e.mustCreate(e.A.SandboxKey, ada)
	path := "/v1/applicants/" + a["publicId"].(string)
	e.mustCreate(e.A.SandboxKey, `{"firstName":"B","lastName":"C","externalRef":"taken"}`)
	e.clock.Advance(60_000_000_000)

	// null = no change, "" clears an optional field, metadata replaces.
	r := e.call("PATCH", path, e.A.SandboxKey, `{"firstName":null,"lastName":" Byron ","phone":"","metadata":{"x":true}}`)
	if r.status != 200 {
		t.Fatalf("patch: %d %s", r.status, r.body)
	}
	got := r.json(t)
	if got["firstName"] != "Ada" || got["lastName"] != "Byron" || got["phone"] != nil || got["email"] != "ada@example.com" {
		t.Errorf("after patch: %s", r.body)
	}
	if m := got["metadata"].(map[string]any); len(m) != 1 || m["x"] != true {
		t.Errorf("metadata = %v, want {x:true}", m)
	}
	if got["updatedAt"] == got["createdAt"] {
		t.Errorf("updatedAt not moved: %s", r.body)
	}
	for _, tt := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"empty required", `{"firstName":""}`, 400, "VALIDATION_ERROR"},
		{"unknown field", `{"status":"archived"}`, 400, "VALIDATION_ERROR"},
		{"bad dob", `{"dob":"1990-02-30"}`, 400, "VALIDATION_ERROR"},
		{"duplicate externalRef", `{"externalRef":"taken"}`, 409, "CONFLICT"},
		{"empty patch", `{}`, 200, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call("PATCH", path, e.A.SandboxKey, tt.body)
			if r.status != tt.status || (tt.code != "" && r.errCode(t) != tt.code) {
				t.Fatalf("%d %s, want %d %s", r.status, r.body, tt.status, tt.code)
			}
		})
	}
	// An archived applicant cannot be changed until unarchived.
	if r := e.call("POST", path+"/archive", e.A.SandboxKey, ""); r.status != 200 || r.json(t)["status"] != "archived" || r.json(t)["archivedAt"] == nil {
		t.Fatalf("archive: %d %s", r.status, r.body)
	}
	if r := e.call("PATCH", path, e.A.SandboxKey, `{"firstName":"Z"}`); r.status != 422 || r.errCode(t) != "UNPROCESSABLE" {
		t.Errorf("patch archived: %d %s", r.status, r.body)
	}
	if r := e.call("POST", path+"/unarchive", e.A.SandboxKey, "{}"); r.status != 200 || r.json(t)["status"] != "active" || r.json(t)["archivedAt"] != nil {
		t.Fatalf("unarchive: %d %s", r.status, r.body)
	}
	if r := e.call("POST", path+"/archive", e.A.SandboxKey, `{"reason":"x"}`); r.status != 400 {
		t.Errorf("archive with a field: %d %s", r.status, r.body)
	}
}

func TestApplicantListPagingAndArchived(t *testing.T) {
	e := newAPIEnv(t)
	var ids []string
	for i := range 7 {
		ids = append(ids, e.mustCreate(e.A.SandboxKey, fmt.Sprintf(`{"firstName":"P%d","lastName":"Q"}`, i))["id"].(string))
	}
	e.mustCreate(e.A.LiveKey, `{"firstName":"Live","lastName":"Only"}`)
	e.mustCreate(e.B.SandboxKey, `{"firstName":"Other","lastName":"Org"}`)
	if r := e.call("POST", "/v1/applicants/"+ids[0]+"/archive", e.A.SandboxKey, ""); r.status != 200 {
		t.Fatal(r.status)
	}
	list := func(q string) (names []string, pg map[string]any) {
		r := e.call("GET", "/v1/applicants"+q, e.A.SandboxKey, "")
		if r.status != 200 {
			t.Fatalf("list %s: %d %s", q, r.status, r.body)
		}
		m := r.json(t)
		for _, a := range m["data"].([]any) {
			names = append(names, a.(map[string]any)["firstName"].(string))
		}
		return names, m["pagination"].(map[string]any)
	}
	names, pg := list("?size=4")
	if strings.Join(names, ",") != "P6,P5,P4,P3" || pg["totalItems"] != float64(6) || pg["totalPages"] != float64(2) || pg["hasMore"] != true {
		t.Errorf("page 1: %v %v", names, pg)
	}
	names, pg = list("?size=4&page=2")
	if strings.Join(names, ",") != "P2,P1" || pg["hasMore"] != false {
		t.Errorf("page 2: %v %v", names, pg)
	}
	names, _ = list("?includeArchived=true&size=100")
	if strings.Join(names, ",") != "P6,P5,P4,P3,P2,P1,P0" {
		t.Errorf("with archived: %v", names)
	}
	names, pg = list("?page=9")
	if len(names) != 0 || pg["page"] != float64(9) {
		t.Errorf("past the end: %v %v", names, pg)
	}
	for _, q := range []string{"?page=0", "?size=0", "?size=101", "?page=x", "?includeArchived=yes", "?sort=name"} {
		if r := e.call("GET", "/v1/applicants"+q, e.A.SandboxKey, ""); r.status != 400 || r.errCode(t) != "VALIDATION_ERROR" {
			t.Errorf("list %s: %d %s", q, r.status, r.body)
		}
	}
}

// TestIsolation: another organization's applicant is 404 and one of the
// same organization in the other environment is 403 wrong_environment, on
// every applicant endpoint.
func TestIsolation(t *testing.T) {
	e := newAPIEnv(t)
	sandboxApp := e.mustCreate(e.A.SandboxKey, `{"firstName":"S","lastName":"A"}`)
	liveApp := e.mustCreate(e.A.LiveKey, `{"firstName":"L","lastName":"A"}`)
	for _, id := range []string{sandboxApp["id"].(string), sandboxApp["publicId"].(string)} {
		for _, op := range []struct{ method, suffix, body string }{
			{"GET", "", ""},
			{"PATCH", "", `{"firstName":"X"}`},
			{"POST", "/archive", ""},
			{"POST", "/unarchive", ""},
		} {
			path := "/v1/applicants/" + id + op.suffix
			if r := e.call(op.method, path, e.B.SandboxKey, op.body); r.status != 404 || r.errCode(t) != "NOT_FOUND" {
				t.Errorf("other org %s %s: %d %s", op.method, path, r.status, r.body)
			}
			r := e.call(op.method, path, e.A.LiveKey, op.body)
			if r.status != 403 || r.errCode(t) != "wrong_environment" || r.json(t)["error"].(map[string]any)["reason"] != "wrong_environment" {
				t.Errorf("other environment %s %s: %d %s", op.method, path, r.status, r.body)
			}
		}
	}
	// Nothing was changed by the refused calls.
	if r := e.call("GET", "/v1/applicants/"+sandboxApp["id"].(string), e.A.SandboxKey, ""); r.json(t)["firstName"] != "S" || r.json(t)["status"] != "active" {
		t.Errorf("changed by a refused call: %s", r.body)
	}
	if r := e.call("GET", "/v1/applicants/"+liveApp["id"].(string), e.A.SandboxKey, ""); r.status != 403 {
		t.Errorf("live applicant with sandbox key: %d", r.status)
	}
	// Lists never mix environments or organizations.
	if r := e.call("GET", "/v1/applicants", e.A.LiveKey, ""); r.json(t)["pagination"].(map[string]any)["totalItems"] != float64(1) {
		t.Errorf("live list: %s", r.body)
	}
	if r := e.call("GET", "/v1/applicants", e.B.SandboxKey, ""); r.json(t)["pagination"].(map[string]any)["totalItems"] != float64(0) {
		t.Errorf("other org list: %s", r.body)
	}
	// An externalRef may repeat across environments and organizations.
	for _, key := range []string{e.A.SandboxKey, e.A.LiveKey, e.B.SandboxKey} {
		e.mustCreate(key, `{"firstName":"R","lastName":"R","externalRef":"same"}`)
	}
	if r := e.call("POST", "/v1/applicants", e.A.LiveKey, `{"firstName":"R","lastName":"R","externalRef":"same"}`); r.status != 409 {
		t.Errorf("duplicate externalRef in one environment: %d", r.status)
	}
	// Ids that cannot exist are 404, not 400 or 500.
	for _, id := range []string{"app_", "nope", "kyc_01JCXW6Y0Q4H3T2V5N7M8K9P0R", "app_01JCXW6Y0Q4H3T2V5N7M8K9P0R", "app_zzzzzzzzzzzz", "app_'%20OR%201=1"} {
		if r := e.call("GET", "/v1/applicants/"+id, e.A.SandboxKey, ""); r.status != 404 {
			t.Errorf("GET %s: %d", id, r.status)
		}
	}
}

func TestRoutingErrors(t *testing.T) {
	e := newAPIEnv(t)
	for _, tt := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/v1/nothing", 404, "NOT_FOUND"},
		{"GET", "/index.html", 404, "NOT_FOUND"}, // "/" itself is the front page (TestRootPage)
		{"POST", "/", 405, "METHOD_NOT_ALLOWED"},
		{"DELETE", "/v1/applicants", 405, "METHOD_NOT_ALLOWED"},
		{"PUT", "/v1/applicants/app_x", 405, "METHOD_NOT_ALLOWED"},
		{"GET", "/swagger-ui/index.html", 404, "NOT_FOUND"}, // only with --dev
	} {
		r := e.call(tt.method, tt.path, e.A.SandboxKey, "")
		if r.status != tt.status || r.errCode(t) != tt.code {
			t.Errorf("%s %s: %d %s", tt.method, tt.path, r.status, r.body)
		}
		if tt.status == 405 && r.header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", tt.method, tt.path)
		}
	}
}

func TestApplicantEnvironmentField(t *testing.T) {
	e := newAPIEnv(t)
	for _, tt := range []struct {
		key, body string
		status    int
		code      string
	}{
		{e.A.SandboxKey, `{"firstName":"A","lastName":"B","environment":"sandbox"}`, 201, ""},
		{e.A.SandboxKey, `{"firstName":"A","lastName":"B","environment":"live"}`, 403, "wrong_environment"},
		{e.A.LiveKey, `{"firstName":"A","lastName":"B","environment":"sandbox"}`, 403, "wrong_environment"},
		{e.A.SandboxKey, `{"firstName":"A","lastName":"B","environment":"prod"}`, 400, "VALIDATION_ERROR"},
		{e.A.SandboxKey, `{"firstName":"A","environment":"live"}`, 400, "VALIDATION_ERROR"}, // field errors first
	} {
		if r := e.call("POST", "/v1/applicants", tt.key, tt.body); r.status != tt.status || (tt.code != "" && r.errCode(t) != tt.code) {
			t.Errorf("%s: %d %s", tt.body, r.status, r.body)
		}
	}
	if n := e.count(e.A.LiveKey); n != 0 {
		t.Errorf("a refused create wrote %d applicants", n)
	}
	// Deep pages are refused, not an overflow.
	if r := e.call("GET", "/v1/applicants?page=9223372036854775807", e.A.SandboxKey, ""); r.status != 400 {
		t.Errorf("huge page: %d %s", r.status, r.body)
	}
	if r := e.call("GET", "/v1/applicants?page=1000000", e.A.SandboxKey, ""); r.status != 200 {
		t.Errorf("last allowed page: %d %s", r.status, r.body)
	}
}
