package cmd_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"kycd/aml"
	"kycd/cmd"
	"kycd/internal/realdata"
	"kycd/screening"
)

// sharedData returns the path of a file under /work/shared/data, skipping
// the test when it is absent, unless CI=true, where it must be there.
func sharedData(t *testing.T, rel string) string { return realdata.Path(t, rel) }

// writeFile writes a fixture into the test's temporary directory.
func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const vendorCSV = "name,aliases,dob,country,reference,reason\n" +
	"\"DOE, John\",Johnny Doe,1960-01-02,US,V-001,Minister of finance 2019-2023\n" +
	"Jane Roe,,1971,gb,V-002,Member of parliament\n"

var importedLine = regexp.MustCompile(`^imported (lsv_[0-9A-Z]{26}): source vendor, kind pep, 2 entities, 3 names in \d+(\.\d+)?m?s\n$`)

func TestListsImport(t *testing.T) {
	db := newDB(t)
	csv := writeFile(t, "vendor.csv", vendorCSV)
	code, out, errOut := run(t, "lists", "import", "--db", db, "--source", "vendor", "--kind", "pep", "--format", "csv", csv)
	m := importedLine.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("lists import: %d %q %q", code, out, errOut)
	}
	first := m[1]
	code, out, _ = run(t, "lists", "import", "--db", db, "--source", "vendor", "--kind", "pep", "--format", "csv", csv)
	if code != 0 || out != "unchanged (same files as version "+first+")\n" {
		t.Fatalf("same file again: %d %q", code, out)
	}
	code, out, _ = run(t, "lists", "import", "--db", db, "--source", "vendor", "--kind", "pep", "--format", "csv", "--provider", "Vendor Inc", "--force", csv)
	if m = importedLine.FindStringSubmatch(out); code != 0 || m == nil || m[1] == first {
		t.Fatalf("--force: %d %q", code, out)
	}
	second := m[1]

	code, out, _ = run(t, "lists", "list", "--db", db)
	row := regexp.MustCompile(second + `\s+vendor\s+pep\s+csv\s+Vendor Inc\s+2\s+\d{4}-\d\d-\d\dT[0-9:.]+Z\s+[0-9a-f]{12}\s+yes\n`)
	if code != 0 || !strings.HasPrefix(out, "ID ") || !row.MatchString(out) || strings.Contains(out, first) {
		t.Fatalf("lists list: %d\n%s", code, out)
	}
	if code, out, _ = run(t, "lists", "list", "--db", db, "--all"); code != 0 || !regexp.MustCompile(first+`\s.*\sno\n`).MatchString(out) || !strings.Contains(out, second) {
		t.Fatalf("lists list --all: %d\n%s", code, out)
	}
	if code, out, errOut = run(t, "lists", "list", "--db", newDB(t)); code != 0 || !strings.Contains(errOut, "kycd lists update") {
		t.Fatalf("lists list on a new database: %d %q %q", code, out, errOut)
	}

	bad := writeFile(t, "bad.csv", "name,dob\nJohn Doe,1960-13-01\n")
	ofacLike := writeFile(t, "sdn.csv", "not,an,ofac,file\n")
	for _, tt := range []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"unknown format", []string{"--source", "x", "--kind", "pep", "--format", "xlsx", csv}, 2, `--format must be one of "ofac-csv","un-xml","ftm","senzing","csv" but got "xlsx"`},
		{"unknown kind", []string{"--source", "x", "--kind", "terror", "--format", "csv", csv}, 2, `--kind must be one of "sanctions","pep","adverse_media" but got "terror"`},
		{"missing file", []string{"--source", "x", "--kind", "pep", "--format", "csv", "nope.csv"}, 2, "nope.csv: no such file"},
		{"no file", []string{"--source", "x", "--kind", "pep", "--format", "csv"}, 2, "expected \"<FILE> ...\""},
		{"no source", []string{"--kind", "pep", "--format", "csv", csv}, 2, "--source"},
		{"bad row", []string{"--source", "x", "--kind", "pep", "--format", "csv", bad}, 1, `import x (csv): line 2: dob "1960-13-01"`},
		{"wrong format for the file", []string{"--source", "x", "--kind", "sanctions", "--format", "ofac-csv", ofacLike}, 1, "import x (ofac-csv): ofac sdn: line 1"},
		{"two files for un-xml", []string{"--source", "x", "--kind", "sanctions", "--format", "un-xml", csv, bad}, 1, "exactly one file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, append([]string{"lists", "import", "--db", db}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, tt.code, tt.wantErr)
			}
		})
	}
	// Nothing failed half-way: the active versions are the ones above.
	if _, out, _ = run(t, "lists", "list", "--db", db); strings.Count(out, "\n") != 2 || !strings.Contains(out, second) {
		t.Errorf("after the failed imports:\n%s", out)
	}
}

// TestListsImportUN imports the real UN consolidated list.
func TestListsImportUN(t *testing.T) {
	file := sharedData(t, "lists/un_consolidated_2026-02-27.xml")
	db := newDB(t)
	code, out, errOut := run(t, "lists", "import", "--db", db, "--source", "un", "--kind", "sanctions", "--format", "un-xml", file)
	m := regexp.MustCompile(`^imported lsv_\S+: source un, kind sanctions, (\d+) entities, (\d+) names in `).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("import: %d %q %q", code, out, errOut)
	}
	// The list has about 1,000 people and entities with several names each.
	if len(m[1]) < 3 || len(m[2]) < 4 {
		t.Errorf("implausible counts: %s entities, %s names", m[1], m[2])
	}
	if _, out, _ = run(t, "lists", "list", "--db", db); !strings.Contains(out, "UN Security Council Consolidated List") || !strings.Contains(out, m[1]) {
		t.Errorf("lists list:\n%s", out)
	}
}

// TestListsUpdate downloads the three official lists from a local server
// standing in for OFAC and the UN.
func TestListsUpdate(t *testing.T) {
	var mu sync.Mutex
	down := "" // a path that answers 503
	files := map[string]string{
		"/ofac/sdn.csv":                    "100,\"TESTOV, Ivan\",\"individual\",\"SDGT\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n",
		"/ofac/alt.csv":                    "100,1,\"aka\",\"TESTOFF, Ivan\",-0- \n",
		"/ofac/add.csv":                    "100,1,-0- ,\"Moscow\",\"Russia\",-0- \n",
		"/ofac/consolidated/cons_prim.csv": "200,\"PRIMOV, Petr\",\"individual\",\"UKRAINE-EO13662\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n",
		"/ofac/consolidated/cons_alt.csv":  "",
		"/ofac/consolidated/cons_add.csv":  "",
		"/un.xml": `<?xml version="1.0" encoding="UTF-8"?><CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL><DATAID>1</DATAID>` +
			`<FIRST_NAME>ABDUL</FIRST_NAME><SECOND_NAME>TEST</SECOND_NAME></INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		body, ok := files[r.URL.Path]
		if !ok || r.URL.Path == down {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	db := newDB(t)
	args := []string{"lists", "update", "--db", db, "--ofac-base-url", srv.URL + "/ofac", "--un-url", srv.URL + "/un.xml"}

	code, out, errOut := run(t, args...)
	want := regexp.MustCompile(`^ofac-sdn: imported lsv_\S+: source ofac-sdn, kind sanctions, 1 entities, 2 names in \S+\n` +
		`ofac-consolidated: imported lsv_\S+: source ofac-consolidated, kind sanctions, 1 entities, 1 names in \S+\n` +
		`un: imported lsv_\S+: source un, kind sanctions, 1 entities, 1 names in \S+\n$`)
	if code != 0 || !want.MatchString(out) {
		t.Fatalf("lists update: %d\n%s\n%s", code, out, errOut)
	}
	_, before, _ := run(t, "lists", "list", "--db", db)

	mu.Lock()
	down = "/un.xml"
	mu.Unlock()
	code, out, errOut = run(t, append(args, "--source", "un,ofac-sdn")...)
	if code != 1 || !regexp.MustCompile(`^ofac-sdn: unchanged \(same files as version lsv_\S+\)\n$`).MatchString(out) ||
		!strings.Contains(errOut, "1 of 2 lists not updated (each keeps its previous version):\nun: download "+srv.URL+"/un.xml: 503 Service Unavailable") {
		t.Fatalf("update with the UN down: %d %q %q", code, out, errOut)
	}
	if _, after, _ := run(t, "lists", "list", "--db", db); after != before {
		t.Errorf("a failed update changed the lists:\n%s\nbecame\n%s", before, after)
	}

	for _, tt := range []struct {
		args    []string
		code    int
		wantErr string
	}{
		{[]string{"--un-url", "ftp://mirror.example/un.xml"}, 1, `--un-url "ftp://mirror.example/un.xml" must be an absolute http(s) URL`},
		{[]string{"--ofac-base-url", "mirror.example/ofac"}, 1, "--ofac-base-url"},
		{[]string{"--source", "eu"}, 2, `--source must be one of "ofac-sdn","ofac-consolidated","un","opensanctions-sanctions","opensanctions-peps","opensanctions-crime","opensanctions-debarment" but got "eu"`},
	} {
		if code, _, errOut := run(t, append([]string{"lists", "update", "--db", db}, tt.args...)...); code != tt.code || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, errOut, tt.code, tt.wantErr)
		}
	}
}

// TestListsFlagsInStep: the choices and defaults the help shows are the
// ones the aml and screening packages accept.
func TestListsFlagsInStep(t *testing.T) {
	tag := func(v any, field, key string) string {
		f, ok := reflect.TypeOf(v).FieldByName(field)
		if !ok {
			t.Fatalf("%T has no field %s", v, field)
		}
		return f.Tag.Get(key)
	}
	if got, want := tag(cmd.ListsImportCmd{}, "Format", "enum"), strings.Join(aml.Formats, ","); got != want {
		t.Errorf("--format choices %q, want aml.Formats %q", got, want)
	}
	var kinds []string
	for _, k := range screening.Kinds {
		kinds = append(kinds, string(k))
	}
	if got, want := tag(cmd.ListsImportCmd{}, "Kind", "enum"), strings.Join(kinds, ","); got != want {
		t.Errorf("--kind choices %q, want screening.Kinds %q", got, want)
	}
	var names []string
	for _, s := range aml.OfficialSources("", "") {
		names = append(names, s.Source)
	}
	os, err := aml.OpenSanctionsSources("", "", aml.OpenSanctionsDatasetNames())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range os {
		names = append(names, s.Source)
	}
	if got, want := tag(cmd.ListsUpdateCmd{}, "Sources", "enum"), strings.Join(names, ","); got != want {
		t.Errorf("--source choices %q, want %q", got, want)
	}
	code, out, _ := run(t, "lists", "update", "--help")
	flat := strings.Join(strings.Fields(out), " ")
	if code != 0 || !strings.Contains(flat, "(default "+aml.DefaultOFACBaseURL+")") || !strings.Contains(flat, "(default "+aml.DefaultUNURL+")") {
		t.Errorf("lists update --help does not show the default URLs:\n%s", out)
	}
}

func TestOrgsUpdate(t *testing.T) {
	db := newDB(t)
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme")
	org := strings.TrimSpace(out)
	if code, out, _ := run(t, "orgs", "list", "--db", db); code != 0 || !strings.Contains(out, "AML THRESHOLD") || !strings.Contains(out, "default (0.82)") {
		t.Fatalf("orgs list: %d\n%s", code, out)
	}
	if code, out, errOut := run(t, "orgs", "update", org, "--db", db, "--aml-threshold", "0.9"); code != 0 || out != org+": AML threshold 0.9\n" {
		t.Fatalf("orgs update: %d %q %q", code, out, errOut)
	}
	if _, out, _ := run(t, "orgs", "list", "--db", db); !regexp.MustCompile(org + `\s+Acme\s+0\.9\s`).MatchString(out) {
		t.Fatalf("orgs list after update:\n%s", out)
	}
	for _, tt := range []struct {
		args    []string
		code    int
		wantErr string
	}{
		{[]string{org, "--aml-threshold", "0"}, 1, "greater than 0 and at most 1"},
		{[]string{org, "--aml-threshold", "1.5"}, 1, "greater than 0 and at most 1"},
		{[]string{org, "--aml-threshold", "NaN"}, 1, "greater than 0 and at most 1"},
		{[]string{org, "--aml-threshold", "high"}, 1, "greater than 0 and at most 1"},
		{[]string{org}, 1, "nothing to change: give --contact-email, --aml-threshold, --policy"},
		{[]string{org, "--four-eyes", "maybe"}, 2, "--four-eyes"},
		{[]string{org, "--policy", "/nonexistent.json"}, 1, "--policy"},
		{[]string{"org_01JCXW6Y0Q4H3T2V5N7M8K9P0R", "--aml-threshold", "0.9"}, 1, "not found"},
	} {
		if code, _, errOut := run(t, append([]string{"orgs", "update", "--db", db}, tt.args...)...); code != tt.code || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, errOut, tt.code, tt.wantErr)
		}
	}
	if _, out, _ := run(t, "orgs", "list", "--db", db); !strings.Contains(out, "0.9") {
		t.Errorf("a refused update changed the threshold:\n%s", out)
	}
	if code, out, _ := run(t, "orgs", "update", org, "--db", db, "--aml-threshold", "1"); code != 0 || out != org+": AML threshold 1\n" {
		t.Fatalf("threshold 1: %d %q", code, out)
	}
	if code, out, _ := run(t, "orgs", "update", org, "--db", db, "--aml-threshold", "default"); code != 0 || out != org+": AML threshold default (0.82)\n" {
		t.Fatalf("reset: %d %q", code, out)
	}
	if _, out, _ := run(t, "orgs", "list", "--db", db); !strings.Contains(out, "default (0.82)") {
		t.Errorf("after reset:\n%s", out)
	}
}

func TestOrgsUpdatePolicy(t *testing.T) {
	db := newDB(t)
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme")
	org := strings.TrimSpace(out)
	good := writeFile(t, "policy.json", `{"version":"acme-1","minimumAge":21}`)
	bad := writeFile(t, "bad.json", `{"version":"acme-2","actions":{"NOPE":"reject"}}`)
	if code, out, errOut := run(t, "orgs", "update", org, "--db", db, "--policy", good, "--four-eyes", "on"); code != 0 ||
		out != org+": decision policy acme-1\n"+org+": four-eyes review on\n" {
		t.Fatalf("update: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run(t, "orgs", "update", org, "--db", db, "--policy", bad); code != 1 || !strings.Contains(errOut, "actions.NOPE: unknown reason code") {
		t.Errorf("bad policy: %d %q", code, errOut)
	}
	if code, out, _ := run(t, "orgs", "update", org, "--db", db, "--policy", "default"); code != 0 || out != org+": decision policy default\n" {
		t.Errorf("reset: %d %q", code, out)
	}
}

// TestListsImportAllowShrink: kycd lists import refuses a version that
// changes the source's kind or loses more than 20% of its entities, naming
// both counts, and takes it with --allow-shrink (issue 23 item 2).
func TestListsImportAllowShrink(t *testing.T) {
	db := newDB(t)
	var b strings.Builder
	b.WriteString("name,reference\n")
	for i := range 10 {
		b.WriteString("Listed Person" + string(rune('a'+i)) + ",R-" + string(rune('0'+i)) + "\n")
	}
	full := writeFile(t, "full.csv", b.String())
	one := writeFile(t, "one.csv", "name,reference\nSomeone Else,X-1\n")
	args := func(kind, file string, more ...string) []string {
		return append(append([]string{"lists", "import", "--db", db, "--source", "ofac-sdn", "--kind", kind, "--format", "csv"}, more...), file)
	}
	if code, out, errOut := run(t, args("sanctions", full)...); code != 0 {
		t.Fatalf("first import: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run(t, args("pep", one)...); code != 1 || !strings.Contains(errOut, "ofac-sdn is a sanctions list of 10 entities") ||
		!strings.Contains(errOut, "--allow-shrink") {
		t.Errorf("kind change: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, args("sanctions", one)...); code != 1 || !strings.Contains(errOut, "from 10 entities to 1") {
		t.Errorf("shrink: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, args("sanctions", one, "--max-shrink", "1.5")...); code != 1 || !strings.Contains(errOut, "--max-shrink") {
		t.Errorf("--max-shrink 1.5: %d %q", code, errOut)
	}
	if code, out, errOut := run(t, args("pep", one, "--allow-shrink")...); code != 0 || !strings.Contains(out, "kind pep, 1 entities") ||
		!strings.Contains(errOut, "no sanctions list is left") {
		t.Errorf("--allow-shrink: %d %q %q", code, out, errOut)
	}
}
