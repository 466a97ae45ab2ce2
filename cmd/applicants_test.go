package cmd_test

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/seal"
	"kycd/store"
	"kycd/store/storetest"
)

// lifecycleFixture is a database with personal data to erase: in org's
// sandbox a victim and another applicant, each with document details and
// an image; in its live environment an applicant with a decided request,
// which retention keeps.
type lifecycleFixture struct {
	db, keyFile string
	key         []byte
	org, other  string // other: a second organization
	victim      *kyc.KYCRequest
	victimImg   []byte
	victimCap   string
	kept        *kyc.KYCRequest
	keptImg     []byte
	keptCap     string
	live        string // the live applicant's id
}

func newLifecycleFixture(t *testing.T, engine string) *lifecycleFixture {
	t.Helper()
	f := &lifecycleFixture{db: storetest.DB(t, engine), key: make([]byte, seal.KeySize)}
	_, _ = rand.Read(f.key)
	f.keyFile = writeFile(t, "master.key", base64.StdEncoding.EncodeToString(f.key)+"\n")
	s, err := store.Open(t.Context(), f.db, withKey(f.key))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f.org, f.other = storetest.MustOrg(t, s, "acme", nil).ID, storetest.MustOrg(t, s, "globex", nil).ID
	f.victim = storetest.MustRequest(t, s, f.org, kyc.Sandbox, &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "GB",
		DocumentNumber: string(storetest.Marker), ExpiryDate: "2031-01-01"})
	f.kept = storetest.MustRequest(t, s, f.org, kyc.Sandbox, &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "FR",
		DocumentNumber: "OTHER123", ExpiryDate: "2030-01-01"})
	f.victimImg, f.keptImg = storetest.Image(), storetest.Image()
	f.victimCap = storetest.MustCapture(t, s, f.victim.ID, "front", f.victimImg).ID
	f.keptCap = storetest.MustCapture(t, s, f.kept.ID, "front", f.keptImg).ID
	live := storetest.MustRequest(t, s, f.org, kyc.Live, nil)
	if err := s.InTx(t.Context(), func(tx *store.Tx) error {
		now := tx.Now()
		live.Status, live.Decision, live.DecidedAt = kyc.KYCApproved, kyc.DecisionApproved, &now
		return tx.SaveKYCRequest(live)
	}); err != nil {
		t.Fatal(err)
	}
	f.live = live.ApplicantID
	return f
}

// cli runs an applicants command on the fixture's database.
func (f *lifecycleFixture) cli(t *testing.T, sub string, args ...string) (int, string, string) {
	t.Helper()
	return run(t, append([]string{"applicants", sub, "--db", f.db, "--master-key-file", f.keyFile}, args...)...)
}

func (f *lifecycleFixture) open(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(t.Context(), f.db, withKey(f.key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestApplicantsLifecycle is issue 28's CLI: show, legal hold, export and
// erasure of one applicant by the operator, on SQLite and PostgreSQL, with
// the API's rules: another organization's or environment's applicant is
// not found, a hold refuses the erasure, retention defers it, an erased
// applicant has nothing to export or hold; every step is audited with the
// operator as actor.
func TestApplicantsLifecycle(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testApplicantsLifecycle(t, engine) })
	}
}

func testApplicantsLifecycle(t *testing.T, engine string) {
	f := newLifecycleFixture(t, engine)
	app := f.victim.ApplicantID
	sandbox := []string{"--org", f.org, "--env", "sandbox"}
	dir := t.TempDir()

	code, out, errOut := f.cli(t, "show", append(sandbox, app)...)
	var shown struct {
		Applicant struct {
			ID        string `json:"id"`
			FirstName string `json:"firstName"`
		} `json:"applicant"`
		ErasableNow bool `json:"erasableNow"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil || shown.Applicant.ID != app || shown.Applicant.FirstName != "Ada" || !shown.ErasableNow {
		t.Fatalf("show: %d %q %q", code, out, errOut)
	}

	// Scoped as the API's key is: another organization's does not find the
	// applicant; the other environment is refused, saying which it is in
	// (the API's wrong environment, worded for --env); nothing changes.
	for _, scope := range [][]string{{"--org", f.other, "--env", "sandbox"}, {"--org", f.org, "--env", "live"}} {
		want := "Applicant " + app + " not found"
		if scope[1] == f.org {
			want = "is not in the live environment of " + f.org + " (it is in sandbox: --env sandbox); nothing was done"
		}
		for _, c := range [][]string{
			{"show"}, {"erase", "--reason", "r"}, {"hold", "--reason", "r"}, {"release-hold", "--reason", "r"},
			{"export", "--out", filepath.Join(dir, "scoped.zip")},
		} {
			code, _, errOut := f.cli(t, c[0], append(append(append([]string{}, c[1:]...), scope...), app)...)
			if code != 1 || !strings.Contains(errOut, want) {
				t.Errorf("%v %v: %d %q, want %q", c, scope, code, errOut, want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "scoped.zip")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused export left its file: %v", err)
	}

	// The reason is required, and not blank.
	if code, _, errOut := f.cli(t, "hold", append(sandbox, app)...); code != 2 || !strings.Contains(errOut, "--reason") {
		t.Errorf("hold without a reason: %d %q", code, errOut)
	}
	if code, _, errOut := f.cli(t, "hold", append(sandbox, "--reason", "  ", app)...); code != 1 || !strings.Contains(errOut, "--reason must not be empty") {
		t.Errorf("hold with a blank reason: %d %q", code, errOut)
	}
	if code, _, errOut := f.cli(t, "erase", append(sandbox, "--reason", strings.Repeat("x", 501), app)...); code != 1 || !strings.Contains(errOut, "at most 500") {
		t.Errorf("erase with a long reason: %d %q", code, errOut)
	}

	// Legal hold refuses the erasure until released.
	if code, out, errOut := f.cli(t, "hold", append(sandbox, "--reason", "court order 42", app)...); code != 0 || !strings.Contains(out, "legal hold set") {
		t.Fatalf("hold: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := f.cli(t, "erase", append(sandbox, "--reason", "DSAR 7", app)...); code != 1 || out != "" || !strings.Contains(errOut, "under legal hold") {
		t.Errorf("erase under hold: %d %q %q", code, out, errOut)
	}
	if got := captureData(t, f.open(t), f.victimCap); !bytes.Equal(got, f.victimImg) {
		t.Error("erase under hold removed the image")
	}
	if code, out, errOut := f.cli(t, "release-hold", append(sandbox, "--reason", "order lifted", app)...); code != 0 || !strings.Contains(out, "legal hold released") {
		t.Fatalf("release-hold: %d %q %q", code, out, errOut)
	}

	// The export is the API's archive, written to --out, never over a file.
	zipPath := filepath.Join(dir, "export.zip")
	if code, out, errOut := f.cli(t, "export", append(sandbox, "--out", zipPath, app)...); code != 0 || !strings.Contains(out, zipPath) {
		t.Fatalf("export: %d %q %q", code, out, errOut)
	}
	checkExport(t, zipPath, app, f.victimImg)
	if code, _, errOut := f.cli(t, "export", append(sandbox, "--out", zipPath, app)...); code != 1 || !strings.Contains(errOut, "file exists") {
		t.Errorf("export over an existing file: %d %q", code, errOut)
	}

	// Retention defers a decided live applicant's erasure: the date is
	// printed and recorded.
	code, out, errOut = f.cli(t, "erase", "--org", f.org, "--env", "live", "--reason", "DSAR 8", f.live)
	var sched struct {
		Object, ApplicantID, ErasureScheduledAt string
	}
	if code != 0 || json.Unmarshal([]byte(out), &sched) != nil || sched.Object != "applicant_erasure_scheduled" || !strings.Contains(errOut, sched.ErasureScheduledAt) {
		t.Fatalf("erase a kept applicant: %d %q %q", code, out, errOut)
	}
	if at, err := time.Parse(time.RFC3339, sched.ErasureScheduledAt); err != nil || at.Year() != time.Now().Year()+kyc.RetainDecidedYears {
		t.Errorf("scheduled at %q (%v), want %d years on", sched.ErasureScheduledAt, err, kyc.RetainDecidedYears)
	}
	if a, err := f.open(t).FindApplicant(t.Context(), f.org, kyc.Live, f.live); err != nil || a.ErasedAt != nil || a.ErasureScheduledAt == nil {
		t.Errorf("kept applicant: %v %+v", err, a)
	}

	// A backup taken before the erasure, for the crypto-shredding check.
	backup := filepath.Join(dir, "before.db")
	if engine == "sqlite" {
		if code, _, errOut := run(t, "backup", "--db", f.db, "--out", backup); code != 0 {
			t.Fatalf("backup: %d %q", code, errOut)
		}
	}

	code, out, errOut = f.cli(t, "erase", append(sandbox, "--reason", "DSAR 7", app)...)
	var rec kyc.ErasureReceipt
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil {
		t.Fatalf("erase: %d %q %q", code, out, errOut)
	}
	if rec.Object != "applicant_erasure" || rec.ApplicantID != app || rec.Rule != kyc.ErasureOnRequest || rec.ActorType != string(kyc.ActorOperator) ||
		rec.ActorID == nil || !strings.HasPrefix(*rec.ActorID, "cli") || rec.Reason == nil || *rec.Reason != "DSAR 7" || !rec.KeyDestroyed ||
		len(rec.Requests) != 1 || len(rec.Requests[0].ImagesSHA256) != 1 {
		t.Errorf("receipt: %s", out)
	}
	// Again: the same receipt.
	if code, again, _ := f.cli(t, "erase", append(sandbox, "--reason", "DSAR 7 again", app)...); code != 0 || again != out {
		t.Errorf("erase again: %d %q, want the first receipt", code, again)
	}

	// Nothing is left to export or to hold.
	erasedZip := filepath.Join(dir, "erased.zip")
	if code, _, errOut := f.cli(t, "export", append(sandbox, "--out", erasedZip, app)...); code != 1 || !strings.Contains(errOut, "was erased") {
		t.Errorf("export of an erased applicant: %d %q", code, errOut)
	}
	if _, err := os.Stat(erasedZip); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused export left its file: %v", err)
	}
	if code, _, errOut := f.cli(t, "hold", append(sandbox, "--reason", "late order", app)...); code != 1 || !strings.Contains(errOut, "was erased") {
		t.Errorf("hold of an erased applicant: %d %q", code, errOut)
	}

	// The erased image no longer opens; the other applicant's does.
	s := f.open(t)
	if _, err := s.FindCaptureData(t.Context(), f.victimCap); err == nil {
		t.Error("the erased image still opens")
	}
	if got := captureData(t, s, f.keptCap); !bytes.Equal(got, f.keptImg) {
		t.Error("the other applicant's image no longer opens")
	}
	if engine == "sqlite" {
		checkShredded(t, f, backup)
	}

	checkOperatorAudit(t, f.db, app, []string{store.AccessApplicantViewed, "applicant.legal_hold_set", "applicant.legal_hold_lifted",
		"applicant.exported", "applicant.erased"})
}

func captureData(t *testing.T, s *store.Store, id string) []byte {
	t.Helper()
	c, err := s.FindCaptureData(t.Context(), id)
	if err != nil {
		t.Fatalf("capture %s: %v", id, err)
	}
	return c.Data
}

// checkExport reads the archive: export.json names the applicant, and the
// image is in it as captured.
func checkExport(t *testing.T, path, app string, img []byte) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("export file: %v %v, want mode 0600", err, fi)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var doc struct {
		Object    string `json:"object"`
		Applicant struct {
			ID string `json:"id"`
		} `json:"applicant"`
		Requests []struct {
			Captures []struct{ File string } `json:"captures"`
		} `json:"requests"`
	}
	files := map[string][]byte{}
	for _, zf := range zr.File {
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[zf.Name], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := json.Unmarshal(files["export.json"], &doc); err != nil || doc.Object != "applicant_export" || doc.Applicant.ID != app ||
		len(doc.Requests) != 1 || len(doc.Requests[0].Captures) != 1 {
		t.Fatalf("export.json: %v %s", err, files["export.json"])
	}
	if !bytes.Equal(files[doc.Requests[0].Captures[0].File], img) {
		t.Error("the archive's image differs from the capture")
	}
}

// checkShredded is the crypto-shredding proof for an erasure the CLI
// made: a backup taken before it, restored beside the live key store and
// opened with the master key, no longer yields the erased image or
// document details, while the other applicant's still open.
func checkShredded(t *testing.T, f *lifecycleFixture, backup string) {
	t.Helper()
	keys, err := os.ReadFile(f.db + ".keys")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(backup+".keys", keys, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := store.Open(t.Context(), backup, withKey(f.key))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.FindCaptureData(t.Context(), f.victimCap); !errors.Is(err, store.ErrErased) {
		t.Errorf("erased image from the backup: %v, want ErrErased", err)
	}
	if _, err := c.FindKYCRequest(t.Context(), f.org, kyc.Sandbox, f.victim.ID); !errors.Is(err, store.ErrErased) {
		t.Errorf("erased document details from the backup: %v, want ErrErased", err)
	}
	if got := captureData(t, c, f.keptCap); !bytes.Equal(got, f.keptImg) {
		t.Error("the other applicant's image from the backup")
	}
}

// checkOperatorAudit: kycd audit export has each action on the applicant,
// by the operator (cli:<user>).
func checkOperatorAudit(t *testing.T, db, app string, actions []string) {
	t.Helper()
	code, out, errOut := run(t, "audit", "export", "--db", db)
	if code != 0 {
		t.Fatalf("audit export: %d %q", code, errOut)
	}
	by := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct {
			ResourceID string  `json:"resourceId"`
			Action     string  `json:"action"`
			ActorType  string  `json:"actorType"`
			ActorID    *string `json:"actorId"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if row.ResourceID == app && row.ActorID != nil {
			by[row.Action] = row.ActorType + " " + *row.ActorID
		}
	}
	for _, a := range actions {
		if !strings.HasPrefix(by[a], string(kyc.ActorOperator)+" cli") {
			t.Errorf("audit %s: %q, want the operator", a, by[a])
		}
	}
}
