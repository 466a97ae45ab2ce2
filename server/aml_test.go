package server_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"kycd/aml"
	"kycd/screening"
	"kycd/server"
	"kycd/store"
)

func (e *apiEnv) mustAML(key, body string) map[string]any {
	e.t.Helper()
	r := e.call("POST", "/v1/aml-checks", key, body)
	if r.status != http.StatusCreated {
		e.t.Fatalf("create aml check %s: %d %s", body, r.status, r.body)
	}
	return r.json(e.t)
}

func results(t *testing.T, c map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, r := range c["results"].([]any) {
		m := r.(map[string]any)
		out[m["checkType"].(string)] = m
	}
	if len(out) != 3 {
		t.Fatalf("want 3 results, got %v", c["results"])
	}
	return out
}

// TestAMLSandboxOutcomes: the sandbox test list produces every outcome,
// and the roll-up follows spec §3.2.
func TestAMLSandboxOutcomes(t *testing.T) {
	e := newAPIEnv(t)
	for _, tt := range []struct {
		first, last string
		status      string
		risk        any
		hits        []string // list kinds with a hit
		failed      string   // list kind with an error
	}{
		{"Ada", "Lovelace", "no_match", nil, nil, ""},
		{"Sandbox", "Sanctioned", "potential_match", "high", []string{"sanctions"}, ""},
		{"sanctioned", "SANDBOX", "potential_match", "high", []string{"sanctions"}, ""}, // order and case
		{"Sandbox", "Politician", "potential_match", "high", []string{"pep"}, ""},
		{"Sandbox", "Adverse", "potential_match", "high", []string{"adverse_media"}, ""},
		{"Sandbox", "Everything", "potential_match", "high", []string{"sanctions", "pep", "adverse_media"}, ""},
		{"Sandbox", "Failure", "failed", nil, nil, "sanctions"},
	} {
		c := e.mustAML(e.A.SandboxKey, `{"firstName":"`+tt.first+`","lastName":"`+tt.last+`"}`)
		if c["status"] != tt.status || c["riskLevel"] != tt.risk || c["environment"] != "sandbox" {
			t.Errorf("%s %s: status %v risk %v", tt.first, tt.last, c["status"], c["riskLevel"])
		}
		rs := results(t, c)
		hits := 0
		for kind, r := range rs {
			want := "clear"
			for _, h := range tt.hits {
				if h == kind {
					want = "hit"
					hits++
				}
			}
			if kind == tt.failed {
				want = "error"
			}
			if r["status"] != want {
				t.Errorf("%s %s: %s is %v, want %s", tt.first, tt.last, kind, r["status"], want)
			}
			if want == "error" && r["riskLevel"] != nil {
				t.Errorf("%s %s: %s could not be screened but has riskLevel %v, want null", tt.first, tt.last, kind, r["riskLevel"])
			}
			if want == "clear" && (r["riskLevel"] != "low" || r["matchCount"] != float64(0) || len(r["matches"].([]any)) != 0) {
				t.Errorf("%s %s: clear %s result %v", tt.first, tt.last, kind, r)
			}
			if want == "hit" {
				m := r["matches"].([]any)[0].(map[string]any)
				if m["source"] != "sandbox-test-list" || m["score"].(float64) < 0.95 || m["features"] == nil {
					t.Errorf("%s %s: match record %v", tt.first, tt.last, m)
				}
			}
		}
		if c["matchCount"] != float64(hits) {
			t.Errorf("%s %s: matchCount %v, want %d", tt.first, tt.last, c["matchCount"], hits)
		}
		if h := c["monitoringHistory"].([]any); len(h) != 1 || h[0].(map[string]any)["trigger"] != "initial" {
			t.Errorf("history %v", h)
		}
	}
}

// TestAMLLiveFailsClosed: live with no list loaded is failed, never a
// clean pass, and the sandbox test list is not used in live. Sanctions
// are always in scope; by default PEP and adverse media are screened only
// once the installation has a list of them (not_screened until then), and
// an organization that chooses them fails closed without one.
func TestAMLLiveFailsClosed(t *testing.T) {
	e := newAPIEnv(t)
	check := func(want map[string]string) {
		t.Helper()
		for _, name := range []string{`"Ada","lastName":"Lovelace"`, `"Sandbox","lastName":"Sanctioned"`} {
			c := e.mustAML(e.A.LiveKey, `{"firstName":`+name+`}`)
			if c["status"] != "failed" || c["riskLevel"] != nil {
				t.Fatalf("live without lists: %v", c)
			}
			for kind, r := range results(t, c) {
				switch want[kind] {
				case "error":
					if r["status"] != "error" || r["provider"] != "none" || !strings.Contains(r["error"].(string), "no "+kind+" list") || r["riskLevel"] != nil {
						t.Errorf("%s: %v", kind, r)
					}
				default:
					if r["status"] != "not_screened" || r["provider"] != "none" || r["error"] != nil || r["riskLevel"] != nil {
						t.Errorf("%s: %v", kind, r)
					}
				}
			}
		}
	}
	check(map[string]string{"sanctions": "error"})
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		return tx.SetAMLKinds(e.A.ID, []string{"sanctions", "pep", "adverse_media"})
	}); err != nil {
		t.Fatal(err)
	}
	check(map[string]string{"sanctions": "error", "pep": "error", "adverse_media": "error"})
}

// TestAMLLiveWithLists screens live against lists the service loaded.
func TestAMLLiveWithLists(t *testing.T) {
	e := newAPIEnv(t, func(o *server.Options) {})
	sc, err := screening.NewScreener()
	if err != nil {
		t.Fatal(err)
	}
	svc := aml.New(e.store, sc, nil)
	e.opts.AML = svc
	e.start()
	importCSV(t, e, "in-house-sanctions", screening.Sanctions, "name,aliases,dob,country,reference,reason\nIvan Petrovich Sidorov,Иван Сидоров,1961-03-04,RU,S-1,test listing\n")
	importCSV(t, e, "in-house-pep", screening.PEP, "name,dob,country,reference\nMaria Gonzalez Lopez,1975,ES,P-1\n")
	importCSV(t, e, "in-house-media", screening.AdverseMedia, "name,reference\nJohn Fraudster,M-1\n")
	if err := svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	c := e.mustAML(e.A.LiveKey, `{"firstName":"Иван","lastName":"Сидоров","dob":"1961-03-04","country":"RU"}`)
	rs := results(t, c)
	if c["status"] != "potential_match" || rs["sanctions"]["status"] != "hit" || rs["pep"]["status"] != "clear" {
		t.Fatalf("Cyrillic query: %v", c)
	}
	m := rs["sanctions"]["matches"].([]any)[0].(map[string]any)
	if m["entityId"] != "S-1" || m["provider"] != "in-house-sanctions" || m["features"].(map[string]any)["dob"] != "exact" ||
		len(rs["sanctions"]["lists"].([]any)) != 1 {
		t.Errorf("match record: %v", m)
	}
	// The same name with another year of birth is somebody else.
	c = e.mustAML(e.A.LiveKey, `{"firstName":"Ivan","lastName":"Sidorov","dob":"1990-01-01"}`)
	if c["status"] != "no_match" {
		t.Errorf("different dob: %v", c["status"])
	}
	// Sandbox sees the loaded lists plus its test list.
	c = e.mustAML(e.A.SandboxKey, `{"firstName":"Maria","lastName":"Gonzalez"}`)
	if rs := results(t, c); rs["pep"]["status"] != "hit" || len(rs["pep"]["lists"].([]any)) != 2 {
		t.Errorf("sandbox with lists: %v", rs["pep"])
	}
}

func importCSV(t *testing.T, e *apiEnv, source string, kind screening.Kind, body string) {
	t.Helper()
	f := t.TempDir() + "/" + source + ".csv"
	if err := writeFile(f, body); err != nil {
		t.Fatal(err)
	}
	if _, err := aml.Import(t.Context(), e.store, aml.ImportSpec{Source: source, Kind: kind, Format: "csv", Files: []string{f}}); err != nil {
		t.Fatal(err)
	}
}

func TestAMLValidation(t *testing.T) {
	e := newAPIEnv(t)
	for _, tt := range []struct {
		body   string
		status int
		fields []string
	}{
		{`{}`, 400, []string{"firstName", "lastName"}},
		{`{"firstName":" ","lastName":"X","dob":"1990-02-30","country":"gb","monitoring":"yes"}`, 400, []string{"country", "dob", "firstName", "monitoring"}},
		{`{"firstName":"A","lastName":"B","dob":"2999-01-01"}`, 400, []string{"dob"}},
		{`{"firstName":"A","lastName":"B","nickname":"x"}`, 400, []string{"nickname"}},
		{`{"firstName":"A","lastName":"` + strings.Repeat("x", 101) + `"}`, 400, []string{"lastName"}},
		{`{"firstName":"A","lastName":"B","environment":"live"}`, 403, nil},
	} {
		r := e.call("POST", "/v1/aml-checks", e.A.SandboxKey, tt.body)
		if r.status != tt.status {
			t.Errorf("%s: %d %s", tt.body, r.status, r.body)
			continue
		}
		if tt.fields != nil {
			var got []string
			for _, d := range r.json(t)["error"].(map[string]any)["details"].([]any) {
				got = append(got, d.(map[string]any)["field"].(string))
			}
			if strings.Join(got, ",") != strings.Join(tt.fields, ",") {
				t.Errorf("%s: fields %v, want %v", tt.body, got, tt.fields)
			}
		}
	}
	if n := e.call("GET", "/v1/aml-checks", e.A.SandboxKey, "").json(t)["pagination"].(map[string]any)["totalItems"]; n != float64(0) {
		t.Errorf("a refused request stored a check: %v", n)
	}
}

func TestAMLGetListPatch(t *testing.T) {
	e := newAPIEnv(t)
	hit := e.mustAML(e.A.SandboxKey, `{"firstName":"Sandbox","lastName":"Sanctioned","monitoring":true}`)
	clear := e.mustAML(e.A.SandboxKey, `{"firstName":"Ada","lastName":"Lovelace","dob":"1990-12-10","country":"GB"}`)
	e.mustAML(e.A.LiveKey, `{"firstName":"Ada","lastName":"Lovelace"}`)
	if hit["monitoringEnabled"] != true || hit["nextScreenAt"] != "2026-01-03T03:04:05.000Z" || clear["nextScreenAt"] != nil {
		t.Fatalf("monitoring fields: %v / %v", hit["nextScreenAt"], clear["nextScreenAt"])
	}
	for _, id := range []string{hit["id"].(string), hit["publicId"].(string)} {
		if r := e.call("GET", "/v1/aml-checks/"+id, e.A.SandboxKey, ""); r.status != 200 || r.json(t)["id"] != hit["id"] {
			t.Errorf("get %s: %d %s", id, r.status, r.body)
		}
	}
	path := "/v1/aml-checks/" + hit["id"].(string)
	if r := e.call("GET", path, e.B.SandboxKey, ""); r.status != 404 {
		t.Errorf("other organization: %d", r.status)
	}
	if r := e.call("GET", path, e.A.LiveKey, ""); r.status != 403 || !strings.Contains(string(r.body), "wrong_environment") {
		t.Errorf("other environment: %d %s", r.status, r.body)
	}
	for q, want := range map[string]float64{"": 2, "?status=potential_match": 1, "?status=no_match": 1, "?status=failed": 0} {
		if r := e.call("GET", "/v1/aml-checks"+q, e.A.SandboxKey, ""); r.json(t)["pagination"].(map[string]any)["totalItems"] != want {
			t.Errorf("list %s: %s", q, r.body)
		}
	}
	if r := e.call("GET", "/v1/aml-checks?status=clean", e.A.SandboxKey, ""); r.status != 400 {
		t.Errorf("bad status filter: %d", r.status)
	}
	list := e.call("GET", "/v1/aml-checks", e.A.SandboxKey, "").json(t)["data"].([]any)
	if _, has := list[0].(map[string]any)["monitoringHistory"]; has {
		t.Error("list items carry monitoringHistory")
	}
	// PATCH: monitoring off and on; other fields refused.
	r := e.call("PATCH", path, e.A.SandboxKey, `{"monitoring":false}`)
	if c := r.json(t); r.status != 200 || c["monitoringEnabled"] != false || c["nextScreenAt"] != nil {
		t.Fatalf("monitoring off: %d %s", r.status, r.body)
	}
	e.clock.Advance(50 * 3600e9)
	r = e.call("PATCH", path, e.A.SandboxKey, `{"monitoring":true}`)
	if c := r.json(t); c["monitoringEnabled"] != true || c["nextScreenAt"] != "2026-01-04T05:04:05.000Z" {
		t.Fatalf("monitoring on after two days is due at once: %s", r.body)
	}
	for _, body := range []string{`{}`, `{"monitoring":null}`, `{"monitoring":true,"firstName":"X"}`} {
		if r := e.call("PATCH", path, e.A.SandboxKey, body); r.status != 400 {
			t.Errorf("PATCH %s: %d", body, r.status)
		}
	}
}

// TestAMLEvents: completed always, match_found on a potential match, in
// the AmlEvent shape of the OpenAPI description.
func TestAMLEvents(t *testing.T) {
	e := newAPIEnv(t, allowPrivateWebhooks)
	e.call("POST", "/v1/webhook-endpoints", e.A.SandboxKey, `{"url":"https://example.com/hook"}`)
	e.mustAML(e.A.SandboxKey, `{"firstName":"Ada","lastName":"Lovelace"}`)
	e.mustAML(e.A.SandboxKey, `{"firstName":"Sandbox","lastName":"Politician"}`)
	doc, err := openapi3.NewLoader().LoadFromData(server.OpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string]int{"svc.aml_check.completed": 2, "svc.aml_check.match_found": 1} {
		data := e.call("GET", "/v1/webhook-deliveries?eventType="+typ, e.A.SandboxKey, "").json(t)["data"].([]any)
		if len(data) != want {
			t.Errorf("%s: %d deliveries, want %d", typ, len(data), want)
		}
		for _, d := range data {
			id := d.(map[string]any)["id"].(string)
			p := e.call("GET", "/v1/webhook-deliveries/"+id, e.A.SandboxKey, "").json(t)["payload"]
			if err := doc.Components.Schemas["AmlEvent"].Value.VisitJSON(p, openapi3.EnableJSONSchema2020()); err != nil {
				t.Errorf("%s body: %v", typ, err)
			}
		}
	}
}

func writeFile(path, body string) error { return os.WriteFile(path, []byte(body), 0o600) }

// TestAMLRescreen: a failed check is retried with POST …/rescreen, which
// screens against the lists loaded now and records a "manual" history
// entry; replaying its Idempotency-Key screens nothing; repeats converge.
func TestAMLRescreen(t *testing.T) {
	e := newAPIEnv(t)
	// A public address: the endpoint only has to exist for the deliveries
	// to be recorded (nothing is sent without the job runner).
	if r := e.call("POST", "/v1/webhook-endpoints", e.A.LiveKey, `{"url":"https://93.184.216.34/hook"}`); r.status != 201 {
		t.Fatalf("webhook endpoint: %d %s", r.status, r.body)
	}
	// Live with no list loaded: fail-closed.
	create := `{"firstName":"Ivan","lastName":"Sidorov","dob":"1961-03-04","monitoring":true}`
	c := e.call("POST", "/v1/aml-checks", e.A.LiveKey, create, "Idempotency-Key", "create-1").json(t)
	if c["status"] != "failed" {
		t.Fatalf("without lists: %v", c["status"])
	}
	id := c["id"].(string)
	path := "/v1/aml-checks/" + c["publicId"].(string) + "/rescreen"

	importCSV(t, e, "in-house-sanctions", screening.Sanctions, "name,dob,country,reference\nIvan Sidorov,1961-03-04,RU,S-1\n")
	importCSV(t, e, "in-house-pep", screening.PEP, "name,reference\nMaria Gonzalez Lopez,P-1\n")
	importCSV(t, e, "in-house-media", screening.AdverseMedia, "name,reference\nJohn Fraudster,M-1\n")

	// Sending the creation again with its key is not a retry: it replays
	// the stored failed answer (what docs/screening.md warns about).
	if again := e.call("POST", "/v1/aml-checks", e.A.LiveKey, create, "Idempotency-Key", "create-1"); again.json(t)["status"] != "failed" ||
		again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replayed creation: %s", again.body)
	}
	r := e.call("POST", path, e.A.LiveKey, "", "Idempotency-Key", "retry-1")
	if r.status != http.StatusOK {
		t.Fatalf("rescreen: %d %s", r.status, r.body)
	}
	got := r.json(t)
	hist := got["monitoringHistory"].([]any)
	last := hist[len(hist)-1].(map[string]any)
	if got["status"] != "potential_match" || got["riskLevel"] != "high" || len(hist) != 2 || last["trigger"] != "manual" ||
		last["previousStatus"] != "failed" || last["changed"] != true || got["id"] != id {
		t.Fatalf("after rescreen: %s", r.body)
	}
	if rs := results(t, got); rs["sanctions"]["status"] != "hit" || rs["pep"]["status"] != "clear" || rs["pep"]["riskLevel"] != "low" {
		t.Errorf("results after rescreen: %v", rs)
	}
	if got["nextScreenAt"] == nil {
		t.Errorf("a monitored check keeps its next daily re-screen: %v", got["nextScreenAt"])
	}
	// The same key again replays the answer and screens nothing.
	e.clock.Advance(time.Minute)
	r2 := e.call("POST", path, e.A.LiveKey, "", "Idempotency-Key", "retry-1")
	if r2.status != http.StatusOK || r2.header.Get("Idempotent-Replayed") != "true" || string(r2.body) != string(r.body) {
		t.Fatalf("replayed rescreen: %d %v %s", r2.status, r2.header, r2.body)
	}
	// Without a key it screens again: one more entry, nothing changed.
	r3 := e.call("POST", path, e.A.LiveKey, "{}")
	got = r3.json(t)
	hist = got["monitoringHistory"].([]any)
	last = hist[len(hist)-1].(map[string]any)
	if r3.status != http.StatusOK || len(hist) != 3 || last["trigger"] != "manual" || last["changed"] != false || got["status"] != "potential_match" {
		t.Fatalf("second rescreen: %d %s", r3.status, r3.body)
	}
	// GET shows the same history.
	if g := e.call("GET", "/v1/aml-checks/"+id, e.A.LiveKey, "").json(t); len(g["monitoringHistory"].([]any)) != 3 {
		t.Errorf("GET history: %v", g["monitoringHistory"])
	}

	// Events: completed for the creation and each rescreen; match_found
	// once (the first rescreen found the match); monitoring_alert once
	// (the status changed once).
	for typ, want := range map[string]float64{"svc.aml_check.completed": 3, "svc.aml_check.match_found": 1, "svc.aml_check.monitoring_alert": 1} {
		list := e.call("GET", "/v1/webhook-deliveries?eventType="+typ, e.A.LiveKey, "").json(t)
		if n := list["pagination"].(map[string]any)["totalItems"]; n != want {
			t.Errorf("%s: %v deliveries, want %v", typ, n, want)
		}
	}

	// Errors: unknown field, other environment, other organization, unknown id.
	for _, tt := range []struct {
		key, path, body string
		status          int
		code            string
	}{
		{e.A.LiveKey, path, `{"force":true}`, 400, "VALIDATION_ERROR"},
		{e.A.SandboxKey, path, "", 403, "wrong_environment"},
		{e.B.LiveKey, path, "", 404, "NOT_FOUND"},
		{e.A.LiveKey, "/v1/aml-checks/aml_0000000000000/rescreen", "", 404, "NOT_FOUND"},
	} {
		if r := e.call("POST", tt.path, tt.key, tt.body); r.status != tt.status || r.errCode(t) != tt.code {
			t.Errorf("POST %s %s: %d %s, want %d %s", tt.path, tt.body, r.status, r.body, tt.status, tt.code)
		}
	}
}

// TestAMLRescreenUnmonitored: an unmonitored check stays unmonitored, and
// the sandbox failure name still fails (the retry reports what the lists
// say, it does not force a pass).
func TestAMLRescreenUnmonitored(t *testing.T) {
	e := newAPIEnv(t)
	c := e.mustAML(e.A.SandboxKey, `{"firstName":"Sandbox","lastName":"Failure"}`)
	r := e.call("POST", "/v1/aml-checks/"+c["id"].(string)+"/rescreen", e.A.SandboxKey, "")
	got := r.json(t)
	hist := got["monitoringHistory"].([]any)
	if r.status != 200 || got["status"] != "failed" || got["riskLevel"] != nil || got["nextScreenAt"] != nil ||
		got["monitoringEnabled"] != false || len(hist) != 2 || hist[1].(map[string]any)["trigger"] != "manual" {
		t.Fatalf("rescreen of an unmonitored failed check: %d %s", r.status, r.body)
	}
}
