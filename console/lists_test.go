package console_test

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"kycd/aml"
	"kycd/internal/listgen"
	"kycd/kyc"
	"kycd/screening"
	"kycd/server"
	"kycd/store"
)

// listsStack is env with a real screener (no list loaded) and the list
// import runner, whose uploads go under root.
type listsStack struct {
	*env
	aml     *aml.Service
	imports *aml.ListImports
	root    string
}

func newListsStack(t *testing.T, uploadMax int64) *listsStack {
	t.Helper()
	s := &listsStack{root: t.TempDir()}
	s.env = newEnv(t, func(e *env, o *server.Options) {
		sc, err := screening.NewScreener()
		if err != nil {
			t.Fatal(err)
		}
		s.aml = aml.New(e.st, sc, nil)
		s.imports = aml.NewListImports(aml.ListImportsOptions{Store: e.st, Service: s.aml, TempDir: s.root})
		o.AML, o.ListImports, o.ListUploadMax = s.aml, s.imports, uploadMax
	})
	return s
}

// upload posts the import form: the text fields (name, value, …) in
// order, then each file (name, content) as a "file" part.
func (b *browser) upload(fields []string, files ...string) *page {
	b.t.Helper()
	var parts []formFile
	for i := 0; i+1 < len(files); i += 2 {
		parts = append(parts, formFile{"file", files[i], []byte(files[i+1])})
	}
	return b.multipart("/console/lists/imports", fields, parts...)
}

// imported uploads the files and waits for the import to end; it returns
// the import's id.
func (s *listsStack) imported(b *browser, fields []string, files ...string) string {
	s.t.Helper()
	res := b.upload(fields, files...)
	loc := res.header.Get("Location")
	if res.status != http.StatusSeeOther || !strings.HasPrefix(loc, "/console/lists/imports/lim_") {
		s.t.Fatalf("upload: %d %s %s", res.status, loc, res.text())
	}
	s.imports.Wait()
	return strings.TrimPrefix(loc, "/console/lists/imports/")
}

// status reads an import's JSON form, as console.js polls it.
func (s *listsStack) status(b *browser, id string) map[string]any {
	s.t.Helper()
	res := b.get("/console/lists/imports/" + id + "/progress.json")
	var m map[string]any
	if res.status != http.StatusOK || json.Unmarshal([]byte(res.body), &m) != nil {
		s.t.Fatalf("progress.json: %d %s", res.status, res.body)
	}
	return m
}

// left lists what uploads left under the temp root.
func (s *listsStack) left() []string {
	s.t.Helper()
	entries, err := os.ReadDir(s.root)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func (s *listsStack) counts() (imports, versions int) {
	s.t.Helper()
	li, err := s.st.FindListImports(s.t.Context(), 100)
	if err != nil {
		s.t.Fatal(err)
	}
	vs, err := s.st.FindListVersions(s.t.Context(), false)
	if err != nil {
		s.t.Fatal(err)
	}
	return len(li), len(vs)
}

func fixture(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestListsImport: an installation admin sees the lists page (the kinds
// without a list named, updates off), imports an in-house CSV and the
// OFAC trio through the multipart form with a real client; each import
// ends imported in the background, its version is active, the audit names
// the user, and an AML check through the API matches a name from it at
// once. The same file again is unchanged; a generated 25,000-entity FtM
// file is stored in three batches; nothing is left in the temp root.
func TestListsImport(t *testing.T) {
	s := newListsStack(t, 4<<20)
	inst := s.mustInstallationAdmin("inst@acme.example", "Ines Installation")
	admin := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := s.browser()
	b.login(inst)

	pg := b.get("/console/lists")
	text := pg.text()
	if pg.status != http.StatusOK || !strings.Contains(text, "No list at all for: sanctions, pep, adverse media") ||
		!strings.Contains(text, "fail closed") || !strings.Contains(text, "Automatic updates are off") ||
		!strings.Contains(text, "--update-lists") || strings.Contains(pg.body, `action="/console/lists/update"`) {
		t.Fatalf("lists page before any import: %d %s", pg.status, text)
	}
	if !strings.Contains(pg.body, `href="/console/lists" aria-current="page">Watch lists`) {
		t.Errorf("no Watch lists nav item for an installation admin")
	}
	ab := s.browser()
	ab.login(admin)
	if q := ab.get("/console/live/queue"); strings.Contains(q.body, `href="/console/lists"`) {
		t.Errorf("an admin without the flag sees the Watch lists nav item")
	}
	if pg := ab.get("/console/lists"); pg.status != http.StatusForbidden || !strings.Contains(pg.text(), "kycd users installation-admin") {
		t.Errorf("lists page for an admin without the flag: %d %s", pg.status, pg.text())
	}
	if u := ab.get("/console/users"); !strings.Contains(u.text(), "Ines Installation inst@acme.example admin installation admin") {
		t.Errorf("users page: no installation-admin badge: %s", u.text())
	}

	check := map[string]any{"firstName": "Oskar", "lastName": "Vantongeren", "dob": "1958-03-14"}
	if c := s.api(s.org.LiveKey, "POST", "/v1/aml-checks", check, http.StatusCreated); c["status"] != "failed" {
		t.Fatalf("live check with no list: %v, want failed (fail closed)", c["status"])
	}
	csv := fixture(t, "testdata/lists/inhouse.csv")
	id := s.imported(b, []string{"source", "in-house", "kind", "sanctions", "format", "csv", "provider", "Compliance team"}, "inhouse.csv", csv)
	st := s.status(b, id)
	if st["state"] != "imported" || st["done"] != true || st["entities"] != float64(3) || !strings.HasPrefix(st["versionId"].(string), "lsv_") {
		t.Fatalf("after the CSV import: %v", st)
	}
	version := st["versionId"].(string)
	pg = b.get("/console/lists/imports/" + id)
	if !strings.Contains(pg.text(), "Imported: version "+version+" of in-house, 3 entities, is now active") ||
		strings.Contains(pg.body, `http-equiv="refresh"`) || !strings.Contains(pg.text(), "inhouse.csv") {
		t.Errorf("import page after the end: %s", pg.text())
	}
	rows, err := s.st.FindAudit(t.Context(), version)
	if err != nil || len(rows) != 1 || rows[0].Action != "watch_list.imported" || rows[0].ActorType != kyc.ActorUser || *rows[0].ActorID != inst.User.ID {
		t.Errorf("audit of the version: %+v %v", rows, err)
	}
	c := s.api(s.org.LiveKey, "POST", "/v1/aml-checks", check, http.StatusCreated)
	if c["status"] != "potential_match" || !strings.Contains(mustJSON(t, c), `"entityId":"IH-1"`) {
		t.Errorf("live check after the import: %v", mustJSON(t, c))
	}

	// The same file again: unchanged, naming the active version.
	again := s.imported(b, []string{"source", "in-house", "kind", "sanctions", "format", "csv"}, "inhouse.csv", csv)
	if st := s.status(b, again); st["state"] != "unchanged" || st["versionId"] != version || !strings.Contains(st["summary"].(string), "same files") {
		t.Errorf("the same file again: %v", st)
	}

	// OFAC's three files, told apart by name, sent in any order.
	ofac := s.imported(b, []string{"source", "ofac-sdn", "kind", "sanctions", "format", "ofac-csv"},
		"add.csv", fixture(t, "../screening/testdata/ofac/add.csv"), "sdn.csv", fixture(t, "../screening/testdata/ofac/sdn.csv"),
		"alt.csv", fixture(t, "../screening/testdata/ofac/alt.csv"))
	if st := s.status(b, ofac); st["state"] != "imported" || st["entities"].(float64) < 5 {
		t.Errorf("OFAC trio: %v", st)
	}
	if c := s.api(s.org.LiveKey, "POST", "/v1/aml-checks", map[string]any{"firstName": "Hasan", "lastName": "Nasrallah"}, http.StatusCreated); c["status"] != "potential_match" {
		t.Errorf("live check of an OFAC name: %v", c["status"])
	}

	// 25,000 generated persons: three batches of the import.
	var ftm strings.Builder
	if err := listgen.FTMPersons(&ftm, 25000, "role.pep"); err != nil {
		t.Fatal(err)
	}
	big := s.imported(b, []string{"source", "test-persons", "kind", "pep", "format", "ftm"}, "entities.ftm.json", ftm.String())
	if st := s.status(b, big); st["state"] != "imported" || st["entities"] != float64(25000) || st["bytes"] != float64(ftm.Len()) {
		t.Errorf("FtM import: %v", st)
	}

	pg = b.get("/console/lists")
	text = pg.text()
	for _, want := range []string{"in-house", "Compliance team", "ofac-sdn", "test-persons", "25,000", "by Ines Installation (inst@acme.example)",
		"No list at all for: adverse media", "unchanged"} {
		if !strings.Contains(text, want) {
			t.Errorf("lists page: no %q in %s", want, text)
		}
	}
	if left := s.left(); len(left) != 0 {
		t.Errorf("uploads left in the temp root: %v", left)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestListsImportRefused: a bad field, a missing file, a second file for a
// one-file format and an upload over the limit come back on the page with
// the error at the field (400), keeping the fields; nothing is kept: no
// directory in the temp root, no import row, no version. A second import
// while one runs is refused; a running row whose instance died shows as
// interrupted and does not block the next import.
func TestListsImportRefused(t *testing.T) {
	s := newListsStack(t, 1<<20)
	inst := s.mustInstallationAdmin("inst@acme.example", "Ines Installation")
	b := s.browser()
	b.login(inst)
	csv := "name\nSomeone Listed\n"
	for _, tt := range []struct {
		name   string
		fields []string
		files  []string
		want   []string
	}{
		{"bad fields", []string{"source", " ", "kind", "crime", "format", "pdf"}, []string{"l.csv", csv},
			[]string{"source: is required", "kind: must be sanctions, pep or adverse_media", "format: must be one of ofac-csv, un-xml, ftm, senzing, csv"}},
		{"no file", []string{"source", "vendor", "kind", "pep", "format", "csv"}, nil, []string{"file: is required"}},
		{"two files for csv", []string{"source", "vendor", "kind", "pep", "format", "csv"}, []string{"a.csv", csv, "b.csv", csv},
			[]string{"format csv takes exactly one file, got 2"}},
		{"ofac without the primary", []string{"source", "ofac", "kind", "sanctions", "format", "ofac-csv"}, []string{"alt.csv", csv, "add.csv", csv},
			[]string{"ofac-csv needs the primary file"}},
		{"over the limit", []string{"source", "vendor", "kind", "pep", "format", "csv"}, []string{"big.csv", "name\n" + strings.Repeat("Someone Listed\n", 70000)},
			[]string{"larger than the upload limit of 1 MiB"}},
	} {
		res := b.upload(tt.fields, tt.files...)
		text := res.text()
		if res.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", tt.name, res.status, text)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: no %q in %s", tt.name, w, text)
			}
		}
		if tt.fields[1] == "vendor" && !strings.Contains(res.body, `id="li-source" name="source" required maxlength="100" value="vendor"`) {
			t.Errorf("%s: the source typed is not kept", tt.name)
		}
		if left := s.left(); len(left) != 0 {
			t.Errorf("%s: left in the temp root: %v", tt.name, left)
		}
		if n, v := s.counts(); n != 0 || v != 0 {
			t.Errorf("%s: %d imports, %d versions recorded", tt.name, n, v)
		}
	}

	// An import running on another instance: the next is refused.
	running := &store.ListImport{Source: "other", Kind: "pep", Format: "csv", Total: 10, ActorID: inst.User.ID,
		Files: []store.ListImportFile{{Name: "o.csv", Size: 10}}}
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error { return tx.CreateListImport(running) }); err != nil {
		t.Fatal(err)
	}
	res := b.upload([]string{"source", "vendor", "kind", "pep", "format", "csv"}, "l.csv", csv)
	if res.status != http.StatusConflict || !strings.Contains(res.text(), "Another watch-list import is running ("+running.ID) {
		t.Errorf("an upload while one runs: %d %s", res.status, res.text())
	}
	pg := b.get("/console/lists/imports/" + running.ID)
	if !strings.Contains(pg.body, `<noscript><meta http-equiv="refresh" content="2"></noscript>`) || !strings.Contains(pg.text(), "Checking the files") {
		t.Errorf("a running import's page does not refresh itself: %s", pg.body)
	}
	if l := b.get("/console/lists"); !strings.Contains(l.text(), "An import is running: other") {
		t.Errorf("lists page while one runs: %s", l.text())
	}
	// Its instance dies: 31 s without a heartbeat.
	s.clock.Advance(31 * time.Second)
	pg = b.get("/console/lists/imports/" + running.ID)
	if !strings.Contains(pg.text(), "Interrupted: The kycd instance running it stopped sending progress") || strings.Contains(pg.body, `http-equiv="refresh"`) {
		t.Errorf("a stale import's page: %s", pg.text())
	}
	if st := s.status(b, running.ID); st["state"] != "interrupted" || st["done"] != true {
		t.Errorf("a stale import's JSON: %v", st)
	}
	if id := s.imported(b, []string{"source", "vendor", "kind", "pep", "format", "csv"}, "l.csv", csv); s.status(b, id)["state"] != "imported" {
		t.Errorf("an import after a stale one: %v", s.status(b, id))
	}
	if got, _ := s.st.FindListImport(t.Context(), running.ID); got.State != store.ListImportInterrupted {
		t.Errorf("the stale row: %s", got.State)
	}
}

// TestListsUpdatesAndUploadsOff: with automatic updates on, the page shows
// the next run and "Update now" queues one (audited with the user); with
// uploads off, the form is gone and a post is refused.
func TestListsUpdatesAndUploadsOff(t *testing.T) {
	s := newListsStack(t, -1)
	s.clock.Advance(time.Hour) // 04:04: today's 03:00 run has happened
	inst := s.mustInstallationAdmin("inst@acme.example", "Ines Installation")
	b := s.browser()
	b.login(inst)
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.EnqueueJob(store.NewJob{Kind: aml.KindListsUpdate, RunAt: time.Date(2026, 1, 3, 3, 0, 0, 0, time.UTC), DedupeKey: "lists.update/2026-01-03"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	pg := b.get("/console/lists")
	text := pg.text()
	if !strings.Contains(text, "Next run 2026-01-03 03:00 UTC") || !strings.Contains(text, "Last run none yet") ||
		!strings.Contains(pg.body, `action="/console/lists/update"`) || !strings.Contains(text, "Uploads are off") ||
		strings.Contains(pg.body, `id="list-import-form"`) {
		t.Fatalf("lists page with updates on and uploads off: %s", text)
	}
	res := b.post("/console/lists/update")
	if res.status != http.StatusSeeOther || !strings.Contains(b.get(res.header.Get("Location")).text(), "A list update is queued to run now") {
		t.Fatalf("update now: %d %v", res.status, res.header)
	}
	if res := b.post("/console/lists/update"); res.status != http.StatusConflict || !strings.Contains(res.text(), "already due or running") {
		t.Errorf("update now twice: %d %s", res.status, res.text())
	}
	rows, err := s.st.FindAudit(t.Context(), aml.KindListsUpdate)
	if err != nil || len(rows) != 1 || *rows[0].ActorID != inst.User.ID {
		t.Errorf("audit of update now: %+v %v", rows, err)
	}
	if res := b.upload([]string{"source", "vendor", "kind", "pep", "format", "csv"}, "l.csv", "name\nX Y\n"); res.status != http.StatusUnprocessableEntity ||
		!strings.Contains(res.text(), "Uploads are off on this server") {
		t.Errorf("upload with uploads off: %d %s", res.status, res.text())
	}
	if !regexp.MustCompile(`lists\.update`).MatchString(rows[0].ResourceID) {
		t.Errorf("audit resource: %s", rows[0].ResourceID)
	}
}
