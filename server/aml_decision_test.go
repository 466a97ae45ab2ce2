package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// matchIDs returns the ids of a check's matches, in result order.
func matchIDs(t *testing.T, c map[string]any) []string {
	t.Helper()
	var ids []string
	for _, r := range c["results"].([]any) {
		for _, m := range r.(map[string]any)["matches"].([]any) {
			ids = append(ids, m.(map[string]any)["id"].(string))
		}
	}
	return ids
}

func reviewOf(t *testing.T, c map[string]any, matchID string) map[string]any {
	t.Helper()
	for _, r := range c["results"].([]any) {
		for _, m := range r.(map[string]any)["matches"].([]any) {
			mm := m.(map[string]any)
			if mm["id"] == matchID {
				rv, _ := mm["review"].(map[string]any)
				return rv
			}
		}
	}
	t.Fatalf("no match %s in %v", matchID, c["results"])
	return nil
}

// TestAMLMatchDecision: POST /v1/aml-checks/{id}/matches/{matchId}/decision
// records each decision with the key as actor, the check is resolved once
// every match is decided, the list and GET show it, and the audit log has
// each decision. Every error case answers in the envelope.
func TestAMLMatchDecision(t *testing.T) {
	e := newAPIEnv(t)
	c := e.mustAML(e.A.SandboxKey, `{"firstName":"Sandbox","lastName":"Everything"}`)
	if c["reviewStatus"] != "pending" || c["resolvedAt"] != nil {
		t.Fatalf("new check with matches: reviewStatus=%v resolvedAt=%v, want pending, null", c["reviewStatus"], c["resolvedAt"])
	}
	ids := matchIDs(t, c)
	if len(ids) != 3 {
		t.Fatalf("Sandbox Everything: %d matches, want 3", len(ids))
	}
	id := c["id"].(string)
	path := func(m string) string { return "/v1/aml-checks/" + id + "/matches/" + m + "/decision" }

	for _, tt := range []struct {
		name, key, path, body string
		status                int
		code                  string
	}{
		{"no decision", e.A.SandboxKey, path(ids[0]), `{"note":"x"}`, 400, "VALIDATION_ERROR"},
		{"unknown decision", e.A.SandboxKey, path(ids[0]), `{"decision":"maybe","note":"x"}`, 400, "VALIDATION_ERROR"},
		{"no note", e.A.SandboxKey, path(ids[0]), `{"decision":"confirmed"}`, 400, "VALIDATION_ERROR"},
		{"blank note", e.A.SandboxKey, path(ids[0]), `{"decision":"confirmed","note":"  "}`, 400, "VALIDATION_ERROR"},
		{"long note", e.A.SandboxKey, path(ids[0]), `{"decision":"confirmed","note":"` + strings.Repeat("a", 2001) + `"}`, 400, "VALIDATION_ERROR"},
		{"unknown field", e.A.SandboxKey, path(ids[0]), `{"decision":"confirmed","note":"x","by":"me"}`, 400, "VALIDATION_ERROR"},
		{"unknown match", e.A.SandboxKey, path("mat_00000000000000000000"), `{"decision":"confirmed","note":"x"}`, 404, "NOT_FOUND"},
		{"other organization", e.B.SandboxKey, path(ids[0]), `{"decision":"confirmed","note":"x"}`, 404, "NOT_FOUND"},
		{"other environment", e.A.LiveKey, path(ids[0]), `{"decision":"confirmed","note":"x"}`, 403, "wrong_environment"},
		{"no key", "", path(ids[0]), `{"decision":"confirmed","note":"x"}`, 401, "MISSING_API_KEY"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call("POST", tt.path, tt.key, tt.body)
			if r.status != tt.status || r.errCode(t) != tt.code {
				t.Fatalf("%d %s, want %d %s: %s", r.status, r.errCode(t), tt.status, tt.code, r.body)
			}
		})
	}

	r := e.call("POST", path(ids[0]), e.A.SandboxKey, `{"decision":"false_positive","note":"Born 30 years apart."}`, "Idempotency-Key", "fp-1")
	if r.status != http.StatusOK {
		t.Fatalf("decide: %d %s", r.status, r.body)
	}
	got := r.json(t)
	rv := reviewOf(t, got, ids[0])
	if rv == nil || rv["decision"] != "false_positive" || rv["actorType"] != "api_key" || rv["actorId"] != "key_"+e.A.SandboxID ||
		rv["current"] != true || rv["note"] != "Born 30 years apart." {
		t.Fatalf("review after decision: %v", rv)
	}
	if got["reviewStatus"] != "pending" {
		t.Errorf("one of three decided: reviewStatus=%v, want pending", got["reviewStatus"])
	}
	// The same key again is the stored answer, not a second decision.
	again := e.call("POST", path(ids[0]), e.A.SandboxKey, `{"decision":"false_positive","note":"Born 30 years apart."}`, "Idempotency-Key", "fp-1")
	if again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.body, r.body) {
		t.Errorf("replay: %v %s", again.header, again.body)
	}

	e.clock.Advance(time.Minute)
	for i, m := range ids[1:] {
		d := map[bool]string{true: "confirmed", false: "false_positive"}[i == 0]
		body, _ := json.Marshal(map[string]string{"decision": d, "note": "Checked " + m})
		if r := e.call("POST", path(m), e.A.SandboxKey, string(body)); r.status != http.StatusOK {
			t.Fatalf("decide %s: %d %s", m, r.status, r.body)
		}
	}
	final := e.call("GET", "/v1/aml-checks/"+id, e.A.SandboxKey, "").json(t)
	if final["reviewStatus"] != "resolved" || final["resolvedAt"] == nil {
		t.Errorf("all decided: reviewStatus=%v resolvedAt=%v, want resolved with a time", final["reviewStatus"], final["resolvedAt"])
	}
	if rv := reviewOf(t, final, ids[1]); rv["decision"] != "confirmed" {
		t.Errorf("second match: %v", rv)
	}
	list := e.call("GET", "/v1/aml-checks?reviewStatus=resolved", e.A.SandboxKey, "").json(t)
	if data := list["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != id {
		t.Errorf("resolved list: %v", list["data"])
	}
	if r := e.call("GET", "/v1/aml-checks?reviewStatus=pending", e.A.SandboxKey, "").json(t); len(r["data"].([]any)) != 0 {
		t.Errorf("pending list after resolution: %v", r["data"])
	}
	if r := e.call("GET", "/v1/aml-checks?reviewStatus=done", e.A.SandboxKey, ""); r.status != 400 {
		t.Errorf("bad reviewStatus: %d", r.status)
	}

	var audit bytes.Buffer
	if err := e.store.ExportAudit(t.Context(), time.Time{}, &audit); err != nil {
		t.Fatal(err)
	}
	n := strings.Count(audit.String(), `"action":"aml.match.decided"`)
	if n != 3 || !strings.Contains(audit.String(), `"actorId":"key_`+e.A.SandboxID+`"`) {
		t.Errorf("audit has %d match decisions (want 3, by key_%s):\n%s", n, e.A.SandboxID, audit.String())
	}
}
