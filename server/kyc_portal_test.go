package server_test

import (
	"bytes"
	"database/sql"
	"net/http"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// rawDB opens the test database beside the server, for what only the file
// shows (sealed columns) or what only an old kycd could have written.
func rawDB(t *testing.T, e *kycEnv) *sql.DB {
	t.Helper()
	return storetest.SQL(t, e.store)
}

// TestKYCGetPortalURL: GET carries the creation fields "additionally"
// (spec §2.2), portalUrl included while the link can be used; the token is
// kept sealed, never in clear, and dropped once the link is gone.
func TestKYCGetPortalURL(t *testing.T) {
	e := newKYCEnv(t)
	c := e.create(e.A.SandboxKey, `{"applicant":{"firstName":"Ada","lastName":"Lovelace"},"portalTtlHours":2}`)
	id, link, tok := c["id"].(string), c["portalUrl"].(string), token(t, c)
	path := "/v1/kyc-requests/" + id
	get := func() map[string]any { return e.call("GET", path, e.A.SandboxKey, "").json(t) }

	g := get()
	for _, k := range []string{"id", "publicId", "applicantId", "applicantPublicId", "status", "decision", "environment", "portalExpiresAt", "createdAt"} {
		if g[k] != c[k] {
			t.Errorf("GET %s = %v, creation said %v", k, g[k], c[k])
		}
	}
	if g["portalUrl"] != link || g["portalOpenedAt"] != nil {
		t.Fatalf("GET of a fresh request: portalUrl %v portalOpenedAt %v, want %s and null", g["portalUrl"], g["portalOpenedAt"], link)
	}
	if l := e.call("GET", "/v1/kyc-requests", e.A.SandboxKey, "").json(t)["data"].([]any); l[0].(map[string]any)["portalUrl"] != link {
		t.Errorf("list item portalUrl %v", l[0].(map[string]any)["portalUrl"])
	}
	// The file holds the token sealed, not in clear.
	db := rawDB(t, e)
	var sealed []byte
	var keyID sql.NullInt64
	if err := db.QueryRow(`SELECT portal_token_sealed, portal_token_key_id FROM kyc_requests WHERE id = ?`, id).Scan(&sealed, &keyID); err != nil {
		t.Fatal(err)
	}
	if len(sealed) == 0 || !keyID.Valid || bytes.Contains(sealed, []byte(tok)) {
		t.Fatalf("sealed token: %d bytes, key %v, contains the token: %v", len(sealed), keyID, bytes.Contains(sealed, []byte(tok)))
	}
	// A sealed token moved to another row does not open there.
	other := e.create(e.A.SandboxKey, `{"applicant":{"firstName":"Bo","lastName":"B"}}`)
	if _, err := db.Exec(`UPDATE kyc_requests SET portal_token_sealed = ? WHERE id = ?`, sealed, other["id"]); err != nil {
		t.Fatal(err)
	}
	if r := e.call("GET", "/v1/kyc-requests/"+other["id"].(string), e.A.SandboxKey, ""); r.status != http.StatusInternalServerError {
		t.Errorf("a token sealed for another request opened: %d %s", r.status, r.body)
	}

	// Resend: the new link is shown, the old one is gone.
	r := e.call("POST", path+"/resend-link", e.A.SandboxKey, "")
	link2 := r.json(t)["portalUrl"].(string)
	if g := get(); g["portalUrl"] != link2 || link2 == link {
		t.Fatalf("after resend: portalUrl %v, want the new %s", g["portalUrl"], link2)
	}
	// Past its expiry (before the expiry job has run) the link is not shown.
	e.clock.Advance(7*24*time.Hour + time.Second)
	if g := get(); g["status"] != "link_generated" || g["portalUrl"] != nil {
		t.Fatalf("expired link: status %v portalUrl %v, want link_generated and null", g["status"], g["portalUrl"])
	}
	e.runJobs()
	if g := get(); g["status"] != "expired" || g["portalUrl"] != nil {
		t.Fatalf("after the expiry job: %v %v", g["status"], g["portalUrl"])
	}
	// Once the link can no longer be used its sealed copy is dropped.
	if err := db.QueryRow(`SELECT portal_token_sealed, portal_token_key_id FROM kyc_requests WHERE id = ?`, id).Scan(&sealed, &keyID); err != nil {
		t.Fatal(err)
	}
	if sealed != nil || keyID.Valid {
		t.Errorf("expired request keeps its sealed token (%d bytes)", len(sealed))
	}
	// Reopened by resend-link: shown again; submitted: gone.
	link3 := e.call("POST", path+"/resend-link", e.A.SandboxKey, "").json(t)["portalUrl"].(string)
	if g := get(); g["portalUrl"] != link3 {
		t.Fatalf("reopened: %v", g["portalUrl"])
	}
	e.submit(token(t, map[string]any{"portalUrl": link3}), "passport", true)
	if g := get(); g["status"] != "submitted" || g["portalUrl"] != nil {
		t.Fatalf("submitted: status %v portalUrl %v", g["status"], g["portalUrl"])
	}

	// A request created before tokens were kept sealed has no link to show
	// until resend-link issues one.
	c = e.create(e.A.SandboxKey, `{"applicant":{"firstName":"Old","lastName":"Row"}}`)
	if _, err := db.Exec(`UPDATE kyc_requests SET portal_token_sealed = NULL, portal_token_key_id = NULL WHERE id = ?`, c["id"]); err != nil {
		t.Fatal(err)
	}
	old := "/v1/kyc-requests/" + c["id"].(string)
	if g := e.call("GET", old, e.A.SandboxKey, "").json(t); g["portalUrl"] != nil || g["status"] != "link_generated" {
		t.Errorf("legacy request: portalUrl %v", g["portalUrl"])
	}
	link4 := e.call("POST", old+"/resend-link", e.A.SandboxKey, "").json(t)["portalUrl"]
	if g := e.call("GET", old, e.A.SandboxKey, "").json(t); g["portalUrl"] != link4 || link4 == nil {
		t.Errorf("legacy request after resend: %v, want %v", g["portalUrl"], link4)
	}
}

// TestKYCPortalOpened: opening the link keeps the status link_generated
// (in_progress is not a status of spec §3.1), sets portalOpenedAt once and
// writes one svc.-prefixed timeline entry, with no webhook; resend-link
// clears portalOpenedAt and the list filter knows no in_progress.
func TestKYCPortalOpened(t *testing.T) {
	e := newKYCEnv(t)
	if r := e.call("POST", "/v1/webhook-endpoints", e.A.LiveKey, `{"url":"https://93.184.216.34/hook"}`); r.status != 201 {
		t.Fatalf("endpoint: %d %s", r.status, r.body)
	}
	c := e.create(e.A.LiveKey, `{"applicant":{"firstName":"Ada","lastName":"Lovelace"}}`)
	id, tok := c["id"].(string), token(t, c)
	path := "/v1/kyc-requests/" + id
	deliveries := func() any {
		return e.call("GET", "/v1/webhook-deliveries", e.A.LiveKey, "").json(t)["pagination"].(map[string]any)["totalItems"]
	}
	before := deliveries()
	open := func() {
		if err := e.store.InTx(t.Context(), func(tx *store.Tx) error { _, err := e.svc.Open(tx, tok); return err }); err != nil {
			t.Fatal(err)
		}
	}
	openedAt := e.clock.Now()
	open()
	e.clock.Advance(time.Minute)
	open() // a second visit changes nothing

	g := e.call("GET", path, e.A.LiveKey, "").json(t)
	if g["status"] != "link_generated" || g["decision"] != "pending" || g["portalOpenedAt"] != kyc.FormatTime(openedAt) || g["portalUrl"] == nil {
		t.Fatalf("after opening: status %v portalOpenedAt %v portalUrl %v", g["status"], g["portalOpenedAt"], g["portalUrl"])
	}
	evs := e.call("GET", path+"/events", e.A.LiveKey, "").json(t)["data"].([]any)
	var opened []map[string]any
	for _, ev := range evs {
		m := ev.(map[string]any)
		if m["toStatus"] == "in_progress" || m["fromStatus"] == "in_progress" {
			t.Errorf("timeline entry with in_progress: %v", m)
		}
		if m["type"] == "svc.kyc.portal_link_opened" {
			opened = append(opened, m)
		}
	}
	if len(opened) != 1 || opened[0]["fromStatus"] != "link_generated" || opened[0]["toStatus"] != "link_generated" || opened[0]["actorType"] != "applicant" {
		t.Fatalf("opened entries: %v", opened)
	}
	if after := deliveries(); after != before {
		t.Errorf("opening the link sent a webhook: %v deliveries, %v before", after, before)
	}
	// Live: the opening is audited under its timeline type.
	audit, err := e.store.FindAudit(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range audit {
		found = found || a.Action == kyc.TimelineOpened
	}
	if !found {
		t.Errorf("no audit row for the opening: %+v", audit)
	}

	// A cancel or a submission works from the opened link: there is no
	// status between.
	if r := e.call("POST", path+"/resend-link", e.A.LiveKey, ""); r.status != 200 || r.json(t)["status"] != "link_generated" {
		t.Fatalf("resend: %d %s", r.status, r.body)
	}
	if g := e.call("GET", path, e.A.LiveKey, "").json(t); g["portalOpenedAt"] != nil {
		t.Errorf("resend-link kept portalOpenedAt %v: the new link has not been opened", g["portalOpenedAt"])
	}
	if r := e.call("GET", "/v1/kyc-requests?status=in_progress", e.A.LiveKey, ""); r.status != 400 {
		t.Errorf("status=in_progress filter: %d, want 400", r.status)
	}
}
