package console_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"kycd/aml"
	"kycd/internal/listgen"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// TestBrowserLists is an installation admin's watch-list import in
// Chromium at 1280 px: the lists page (OFAC imported by the operator,
// automatic updates on), a generated PEP list of 25,000 persons sent
// through the form over a throttled connection, so that the upload's
// progress bar is seen moving, then the import's page following the
// import to "imported" without a reload. The lists page, the import page
// and the form with an error are checked at 1280 and 390 px (no CSP
// violation, no serious or critical axe-core violation, no horizontal
// scrolling) and kept as screenshots.
func TestBrowserLists(t *testing.T) {
	s := newListsStack(t, 0)
	inst := s.mustInstallationAdmin("ines@acme.example", "Ines Installation")
	// What the operator did at the command line: the OFAC trio imported,
	// serve started with --update-lists (tomorrow's run pending).
	ctx := store.WithActor(t.Context(), kyc.Principal{Type: kyc.ActorOperator, ID: "root"})
	if _, err := aml.Import(ctx, s.st, aml.ImportSpec{Source: "ofac-sdn", Kind: screening.Sanctions, Format: "ofac-csv", Provider: "OFAC SDN",
		Files: []string{"../screening/testdata/ofac/sdn.csv", "../screening/testdata/ofac/alt.csv", "../screening/testdata/ofac/add.csv"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.EnqueueJob(store.NewJob{Kind: aml.KindListsUpdate, RunAt: time.Date(2026, 1, 3, 3, 0, 0, 0, time.UTC), DedupeKey: "lists.update/2026-01-03"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "peps.ftm.json")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := listgen.FTMPersons(f, 25000, "role.pep"); err != nil {
		t.Fatal(err)
	}
	f.Close()

	base := s.srv.URL
	b := newTab(t, 1280)
	b.signIn(base, inst)
	b.click(`nav.main a[href="/console/lists"]`)
	if body := b.body(); !strings.Contains(body, "ofac-sdn") || !strings.Contains(body, "No list at all for: pep, adverse media") ||
		!strings.Contains(body, "Next run") {
		t.Fatalf("lists page: %s", body)
	}
	b.check("lists-before")

	// A field error first: the page comes back with it at the field.
	b.typeInto("#li-source", "peps")
	b.do(chromedp.SetValue(chromedp.CSS("#li-kind"), "pep"), chromedp.SetValue(chromedp.CSS("#li-format"), "csv"),
		chromedp.SetUploadFiles(chromedp.CSS("#li-file"), []string{file, file}))
	b.press(`#list-import-form button[type=submit]`)
	b.waitFor(`document.getElementById('li-file-err') && !document.getElementById('li-file-err').hidden && document.getElementById('li-file-err').textContent.includes('exactly one file')`)
	if v := eval[string](b, `document.getElementById('li-source').value`); v != "peps" {
		t.Errorf("the source typed is gone after the error: %q", v)
	}
	b.check("lists-error")

	// The upload, at 1.5 MB/s: about two seconds of progress.
	if _, err := chromedp.Call(b.ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(b.ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{UploadThroughput: 1.5e6, DownloadThroughput: -1}}}); err != nil {
		t.Fatal(err)
	}
	b.do(chromedp.SetValue(chromedp.CSS("#li-format"), "ftm"), chromedp.SetUploadFiles(chromedp.CSS("#li-file"), []string{file}))
	b.press(`#list-import-form button[type=submit]`)
	b.waitFor(`document.getElementById('upload-bar') && !document.getElementById('upload-progress').hidden &&
		document.getElementById('li-file-err').hidden && document.getElementById('form-error').hidden &&
		document.getElementById('upload-bar').value > 0 && document.getElementById('upload-bar').value < document.getElementById('upload-bar').max`)
	if text := eval[string](b, `document.getElementById('upload-text').textContent`); !strings.Contains(text, "MiB sent") {
		t.Errorf("upload progress text: %q", text)
	}
	b.shot("upload-progress")
	// The script follows to the import's page when the upload ends; a
	// query waits across that navigation (a polled expression would not).
	b.do(chromedp.WaitReady(chromedp.CSS("#import-result")))
	b.waitFor(`document.getElementById('import-result').textContent.includes('Imported:')`)
	if body := b.body(); !strings.Contains(body, "25,000 entities, is now active") || !strings.Contains(body, "peps.ftm.json") {
		t.Fatalf("import page at the end: %s", body)
	}
	importPage := eval[string](b, `location.pathname`)
	b.check("list-import")
	if _, err := chromedp.Call(b.ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{UploadThroughput: -1, DownloadThroughput: -1}}}); err != nil {
		t.Fatal(err)
	}
	b.open(base, importPage) // as rendered by the server once finished
	b.check("list-import-done")
	b.open(base, "/console/lists")
	if body := b.body(); !strings.Contains(body, "25,000") || !strings.Contains(body, "No list at all for: adverse media") ||
		!strings.Contains(body, "by Ines Installation") || !strings.Contains(body, "by the operator") {
		t.Errorf("lists page after the import: %s", body)
	}
	b.check("lists")

	// Changing the kind of the 25,000-entity pep source needs the
	// confirmation box: the form comes back with the error at the box,
	// naming the list it would replace (issue 23 item 2).
	small := filepath.Join(t.TempDir(), "media.csv")
	if err := os.WriteFile(small, []byte("name,reference\nMedia Person,M-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.typeInto("#li-source", "peps")
	b.do(chromedp.SetValue(chromedp.CSS("#li-kind"), "adverse_media"), chromedp.SetValue(chromedp.CSS("#li-format"), "csv"),
		chromedp.SetUploadFiles(chromedp.CSS("#li-file"), []string{small}))
	b.press(`#list-import-form button[type=submit]`)
	b.waitFor(`document.getElementById('li-allow-shrink-err') && document.getElementById('li-allow-shrink-err').textContent.includes('pep list of 25,000 entities')`)
	b.check("lists-confirm")
	// Confirmed at the command line: no pep list is left, and the page
	// says pep is lost.
	if _, err := aml.Import(ctx, s.st, aml.ImportSpec{Source: "peps", Kind: screening.AdverseMedia, Format: "csv", Files: []string{small}, AllowShrink: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.aml.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	b.open(base, "/console/lists")
	if body := b.body(); !strings.Contains(body, "Lost: pep.") {
		t.Errorf("lists page after pep was lost: %s", body)
	}
	b.check("lists-lost")

	b.resize(390)
	for _, p := range []struct{ name, path string }{{"lists", "/console/lists"}, {"list-import", importPage}, {"lists-all", "/console/lists?all=1"}} {
		b.open(base, p.path)
		b.check(p.name)
	}
}
