package server_test

import (
	"bytes"
	"mime/multipart"
	"slices"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// user makes a back-office user of organization A with role and returns
// their id.
func (d *decisionEnv) user(role kyc.Role) string {
	d.t.Helper()
	var u *kyc.User
	if err := d.store.InTx(d.t.Context(), func(tx *store.Tx) (err error) {
		u, err = tx.CreateUser(d.A.ID, string(role)+"@alpha.example", "Test "+string(role), role)
		return err
	}); err != nil {
		d.t.Fatal(err)
	}
	return u.ID
}

// sarForm is a multipart body for PUT /v1/aml-cases/{id}/sar.
func sarForm(t *testing.T, ref, filedOn, fileName string, file []byte) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range map[string]string{"reference": ref, "filedOn": filedOn} {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if file != nil {
		w, err := mw.CreateFormFile("file", fileName)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(file)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), mw.FormDataContentType()
}

// TestAMLCaseAPI: confirming a match opens a case (one per check: a
// second confirmation is an entry of the same case) with the org's SLA as
// due time and svc.aml_case.opened delivered; the case can be assigned
// (only to a user who may decide), annotated, its SAR recorded with a
// sealed copy whose type is read from its bytes, closed with an outcome
// (reported needs the SAR first) firing svc.aml_case.closed, and
// reopened. Every change is in the audit chain; another organization
// sees nothing; every response matches the description.
func TestAMLCaseAPI(t *testing.T) {
	d := newDecisionEnv(t)
	key := d.A.SandboxKey
	if err := d.store.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetReviewSLA(d.A.ID, kyc.Sandbox, 24) }); err != nil {
		t.Fatal(err)
	}
	c := d.mustAML(key, `{"firstName":"Sandbox","lastName":"Everything"}`)
	ids := matchIDs(t, c)
	if len(ids) < 2 {
		t.Fatalf("Sandbox Everything: %d matches, want at least 2", len(ids))
	}
	decide := func(match, decision string) {
		t.Helper()
		if r := d.call("POST", "/v1/aml-checks/"+c["id"].(string)+"/matches/"+match+"/decision", key,
			`{"decision":"`+decision+`","note":"Same person: passport and date of birth agree."}`); r.status != 200 {
			t.Fatalf("decide: %d %s", r.status, r.body)
		}
	}
	decide(ids[0], "false_positive")
	if l := d.call("GET", "/v1/aml-cases", key, "").json(t); len(l["data"].([]any)) != 0 {
		t.Fatalf("a false positive opened a case: %v", l)
	}
	decide(ids[0], "confirmed")
	decide(ids[1], "confirmed")
	list := d.call("GET", "/v1/aml-cases?status=open", key, "").json(t)
	if len(list["data"].([]any)) != 1 {
		t.Fatalf("two confirmations of one check: %d cases, want 1", len(list["data"].([]any)))
	}
	cs := list["data"].([]any)[0].(map[string]any)
	id := cs["id"].(string)
	if cs["checkId"] != c["id"] || cs["matchId"] != ids[0] || cs["dueAt"] == nil || cs["status"] != "open" {
		t.Fatalf("case: %v", cs)
	}
	if got := d.call("GET", "/v1/aml-cases/"+id, key, "").json(t); len(got["timeline"].([]any)) != 2 {
		t.Fatalf("timeline: %v, want opened and confirmed", got["timeline"])
	}
	if r := d.call("GET", "/v1/aml-cases/"+id, d.B.SandboxKey, ""); r.status != 404 {
		t.Fatalf("another organization: %d", r.status)
	}
	if r := d.call("GET", "/v1/aml-cases/"+id, d.A.LiveKey, ""); r.status != 403 {
		t.Fatalf("other environment: %d", r.status)
	}

	reviewer := d.user(kyc.RoleReviewer)
	viewer := d.user(kyc.RoleViewer)
	path := "/v1/aml-cases/" + id
	pdf := []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")
	for _, tt := range []struct {
		name, body string
		status     int
		field      string
	}{
		{"nothing", `{}`, 400, "body"},
		{"viewer", `{"assigneeId":"` + viewer + `"}`, 400, "assigneeId"},
		{"stranger", `{"assigneeId":"usr_01M881FFPBFGSEV6ZP7WPQR8A8"}`, 400, "assigneeId"},
		{"bad due", `{"dueAt":"tomorrow"}`, 400, "dueAt"},
		{"close without outcome", `{"status":"closed","note":"x"}`, 400, "outcome"},
		{"close without note", `{"status":"closed","outcome":"relationship_refused"}`, 400, "note"},
		{"bad outcome", `{"status":"closed","outcome":"maybe","note":"x"}`, 400, "outcome"},
		{"outcome without closing", `{"outcome":"reported"}`, 400, "outcome"},
		{"reported before SAR", `{"status":"closed","outcome":"reported","note":"Filed."}`, 422, ""},
		{"assign", `{"assigneeId":"` + reviewer + `","note":"Yours."}`, 200, ""},
		{"due", `{"dueAt":"2031-01-02T03:04:05Z"}`, 200, ""},
	} {
		r := d.call("PATCH", path, key, tt.body)
		if r.status != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.name, r.status, r.body, tt.status)
			continue
		}
		if tt.field != "" && !strings.Contains(string(r.body), `"field":"`+tt.field+`"`) {
			t.Errorf("%s: %s does not name %s", tt.name, r.body, tt.field)
		}
	}

	sar := path + "/sar"
	// A copy larger than a JSON body may be is taken.
	bigPDF := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("0"), 3<<20)...)
	big, bigCT := sarForm(t, "FIU-2026-0041", "2026-01-01", "big.pdf", bigPDF)
	if r := d.call("PUT", sar, key, big, "Content-Type", bigCT); r.status != 200 {
		t.Fatalf("SAR with a 3 MB copy: %d %.200s", r.status, r.body)
	}
	for _, tt := range []struct {
		name, ref, on, file string
		data                []byte
		status              int
		field               string
	}{
		{"no reference", "", "2026-01-02", "", nil, 400, "reference"},
		{"future", "FIU-1", "2999-01-01", "", nil, 400, "filedOn"},
		{"not a date", "FIU-1", "02/01/2026", "", nil, 400, "filedOn"},
		{"html posing as pdf", "FIU-1", "2026-01-02", "sar.pdf", []byte("<html><script>alert(1)</script>"), 400, "file"},
		{"empty file", "FIU-1", "2026-01-02", "sar.pdf", []byte{}, 400, "file"},
		{"just over 10 MB", "FIU-1", "2026-01-02", "sar.pdf", append([]byte("%PDF-"), make([]byte, kyc.MaxSARFileBytes)...), 400, "file"},
		{"body over the limit", "FIU-1", "2026-01-02", "sar.pdf", append([]byte("%PDF-"), make([]byte, kyc.MaxSARFileBytes+100<<10)...), 413, "file"},
		{"pdf", "FIU-2026-0042", "2026-01-02", "sar.pdf", pdf, 200, ""},
	} {
		body, ct := sarForm(t, tt.ref, tt.on, tt.file, tt.data)
		r := d.call("PUT", sar, key, body, "Content-Type", ct)
		if r.status != tt.status || tt.field != "" && !strings.Contains(string(r.body), `"field":"`+tt.field+`"`) {
			t.Errorf("SAR %s: %d %.300s, want %d naming %q", tt.name, r.status, r.body, tt.status, tt.field)
		}
	}
	if r := d.call("PUT", sar, key, `{"reference":"x"}`); r.status != 400 {
		t.Errorf("SAR as JSON: %d", r.status)
	}
	got := d.call("GET", path, key, "").json(t)
	file := got["sar"].(map[string]any)["file"].(map[string]any)
	if file["contentType"] != "application/pdf" || int(file["size"].(float64)) != len(pdf) || got["assigneeId"] != reviewer {
		t.Fatalf("after SAR: %v", got)
	}
	dl := d.call("GET", sar+"/file", key, "")
	if dl.status != 200 || !bytes.Equal(dl.body, pdf) || dl.header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("SAR file: %d %q", dl.status, dl.header.Get("Content-Type"))
	}
	// The copy is sealed: its bytes are not in the database file as sent.
	var raw []byte
	if err := storetest.SQL(t, d.store).QueryRowContext(t.Context(), `SELECT sar_file FROM aml_cases WHERE id = ?`, id).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) == 0 || bytes.Contains(raw, []byte("%PDF-1.4")) {
		t.Fatalf("SAR copy stored in the clear (%d bytes)", len(raw))
	}

	closed := d.call("PATCH", path, key, `{"status":"closed","outcome":"reported","note":"SAR filed; relationship ended."}`)
	if closed.status != 200 || closed.json(t)["status"] != "closed" || closed.json(t)["outcome"] != "reported" {
		t.Fatalf("close: %d %s", closed.status, closed.body)
	}
	if r := d.call("PATCH", path, key, `{"status":"closed","outcome":"reported","note":"again"}`); r.status != 400 || r.errCode(t) != "INVALID_TRANSITION" {
		t.Fatalf("close twice: %d %s", r.status, r.body)
	}
	if r := d.call("PATCH", path, key, `{"status":"open","note":"New information."}`); r.status != 200 || r.json(t)["outcome"] != nil {
		t.Fatalf("reopen: %d %s", r.status, r.body)
	}

	d.runJobs()
	d.mu.Lock()
	evs := slices.Clone(d.events[id])
	d.mu.Unlock()
	if !slices.Contains(evs, string(kyc.EventAMLCaseOpened)) || !slices.Contains(evs, string(kyc.EventAMLCaseClosed)) {
		t.Fatalf("events delivered for the case: %v", evs)
	}
	// The deliveries carry the bodies; call checks them against the
	// description.
	for _, typ := range []kyc.EventType{kyc.EventAMLCaseOpened, kyc.EventAMLCaseClosed} {
		for _, x := range d.call("GET", "/v1/webhook-deliveries?eventType="+string(typ), key, "").json(t)["data"].([]any) {
			d.call("GET", "/v1/webhook-deliveries/"+x.(map[string]any)["id"].(string), key, "")
		}
	}
	rows, err := d.store.FindAudit(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, a := range rows {
		actions = append(actions, a.Action)
	}
	for _, want := range []string{"aml_case.opened", "aml_case.confirmed", "aml_case.assigned", "aml_case.note", "aml_case.due", "aml_case.sar",
		"aml_case.closed", "aml_case.reopened", store.AccessSARFile} {
		if !slices.Contains(actions, want) {
			t.Errorf("audit lacks %s: %v", want, actions)
		}
	}
}
