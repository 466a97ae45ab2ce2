package console_test

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store/storetest"
)

// TestAuditPage: the organization's audit rows, newest first, filtered by
// actor, action prefix, resource and environment, each linking to its
// resource; the export is the same rows as JSON lines with their hashes;
// "Verify the chain" shows the head kycd audit verify prints; another
// organization's rows never show.
func TestAuditPage(t *testing.T) {
	e := newEnv(t)
	admin := e.mustUser("admin@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := e.browser()
	b.login(admin)
	// Two changes by the user, one by an API key.
	b.post("/console/sandbox/keys", "name", "one")
	ep := e.api(e.org.SandboxKey, "POST", "/v1/webhook-endpoints", map[string]any{"url": "https://93.184.216.34/hook"}, 201)
	b.post("/console/sandbox/webhooks/"+ep["id"].(string)+"/enabled", "enabled", "false")

	pg := b.get("/console/audit?action=webhook_endpoint.")
	text := pg.text()
	if pg.status != 200 || !strings.Contains(text, "webhook_endpoint.disabled") || !strings.Contains(text, "webhook_endpoint.created") ||
		strings.Contains(text, "api_key.created") {
		t.Fatalf("action prefix: %d %s", pg.status, text)
	}
	if strings.Index(text, "webhook_endpoint.disabled") > strings.Index(text, "webhook_endpoint.created") {
		t.Errorf("not newest first: %s", text)
	}
	if !strings.Contains(pg.body, `href="/console/sandbox/webhooks/`+ep["id"].(string)+`"`) {
		t.Errorf("no link to the endpoint: %s", pg.body)
	}
	if !strings.Contains(text, "disabled in the console") {
		t.Errorf("the reason does not say the console: %s", text)
	}
	if pg := b.get("/console/audit?actor=" + admin.User.ID); !strings.Contains(pg.text(), "Ada Admin") || strings.Contains(pg.text(), "webhook_endpoint.created") ||
		!strings.Contains(pg.text(), "api_key.created") {
		t.Errorf("actor filter: %s", pg.text())
	}
	if pg := b.get("/console/audit?env=live&action=webhook_endpoint."); !strings.Contains(pg.text(), "No row matches") {
		t.Errorf("env filter: %s", pg.text())
	}
	if pg := b.get("/console/audit?from=yesterday"); pg.status != 400 {
		t.Errorf("bad from: %d", pg.status)
	}

	// Export: JSON lines of the filtered rows, oldest first, with hashes.
	pg = b.get("/console/audit/export?resource=" + ep["id"].(string))
	if pg.status != 200 || !strings.HasPrefix(pg.header.Get("Content-Type"), "application/x-ndjson") {
		t.Fatalf("export: %d %v", pg.status, pg.header)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(pg.body))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 || lines[0]["action"] != "webhook_endpoint.created" || lines[1]["actorId"] != admin.User.ID ||
		lines[1]["prevHash"] == nil || lines[1]["contentHash"] == nil {
		t.Errorf("export: %v", lines)
	}

	// Verify: the same check and head as kycd audit verify.
	v, err := e.st.VerifyAudit(t.Context(), nil)
	if err != nil || !v.OK() {
		t.Fatalf("verify: %v %+v", err, v)
	}
	pg = b.post("/console/audit/verify")
	if pg.status != 200 || !strings.Contains(pg.text(), "The chain verifies") || !strings.Contains(pg.body, v.Head) {
		t.Errorf("verify page: %d %s", pg.status, pg.text())
	}

	// Another organization's admin sees none of it.
	mine := e.org
	e.org = storetest.MustOrg(t, e.st, "other", nil)
	other := e.mustUser("admin@other.example", "Otto Other", kyc.RoleAdmin)
	e.org = mine
	ob := e.browser()
	ob.login(other)
	if pg := ob.get("/console/audit"); strings.Contains(pg.body, ep["id"].(string)) || strings.Contains(pg.text(), "Ada Admin") {
		t.Errorf("other organization sees our rows: %s", pg.text())
	}
	if pg := ob.get("/console/audit/export"); strings.Contains(pg.body, ep["id"].(string)) {
		t.Errorf("other organization exports our rows")
	}
}
