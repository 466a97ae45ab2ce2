package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"kycd/internal/cdpwait"
	"kycd/internal/testtools"
)

const chromiumPath = "/usr/bin/chromium"

// axePath is axe-core as tools/setup installs it (test-only, never in the
// binary).
const axePath = "../tools/axe/node_modules/axe-core/axe.min.js"

// TestAPIReferenceInChromium loads /docs/ from a real kycd handler in
// headless Chromium, under the CSP the server sends: Redoc must render
// the reference (the title, the operations, a schema) with no console
// error, no uncaught exception and no CSP violation (but the refused
// eval of the search index's worker probe, which falls back), and axe-core must
// find no critical violation. Serious ones are Redoc's own markup and are
// logged, not failed on (see docs/api.md).
func TestAPIReferenceInChromium(t *testing.T) {
	testtools.Need(t, chromiumPath, "Chromium ("+chromiumPath+")")
	testtools.Need(t, axePath, "axe-core (tools/axe/node_modules)")
	axe, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatal(err)
	}
	e := newAPIEnv(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath), chromedp.UserDataDir(t.TempDir()), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		// Without these Chromium reaches out to the internet at start.
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("lang", "en-US"), chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTime()

	var mu sync.Mutex
	var problems []string
	chromedp.Listen(ctx, func(ev any) {
		var p string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			p = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				p += " " + ev.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p = "console." + string(ev.Type) + ": " + strings.Join(args, " ")
			}
		case *cdplog.EventEntryAdded:
			// CSP refusals and failed loads are reported here.
			if ev.Entry.Level == cdplog.EntryLevelError {
				p = "log " + string(ev.Entry.Source) + ": " + ev.Entry.Text + " " + ev.Entry.URL
			}
		}
		if p != "" {
			mu.Lock()
			problems = append(problems, p)
			mu.Unlock()
		}
	})
	if _, err := chromedp.Call(ctx, cdplog.Enable, struct{}{}); err != nil {
		t.Fatal(err)
	}
	watch := `window.__csp = [];
document.addEventListener('securitypolicyviolation', function (e) { window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' at ' + e.lineNumber + ':' + e.columnNumber + ' ' + e.sample); });`
	if _, err := chromedp.Call(ctx, cdpage.AddScriptToEvaluateOnNewDocument, cdpage.AddScriptToEvaluateOnNewDocumentParams{Source: watch}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/docs/")); err != nil {
		t.Fatal(err)
	}
	// Rendered: the prerendered page has the title and the menu's tags.
	rendered := `document.readyState === 'complete' && document.body.innerText.includes('kycd Identity Verification API') &&
document.body.innerText.includes('KYC requests')`
	if err := cdpwait.Until(ctx, rendered, 60*time.Second); err != nil {
		text, _ := chromedp.Run(context.WithoutCancel(ctx), chromedp.Evaluate[string](`document.body.innerText.slice(0, 600)`))
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("Redoc did not render the reference: %v\nproblems: %v\ntext: %s", err, problems, text)
	}
	// The scripts work, not only the prerendered HTML: opening a tag in
	// the menu shows its operations, and choosing one navigates to it.
	open := func(label string) {
		t.Helper()
		sel := `//*[@data-testid="menu-item-label"][contains(., "` + label + `")]`
		if err := chromedp.Do(ctx, chromedp.Click(sel, chromedp.NodeVisible)); err != nil {
			t.Fatalf("click %q in the menu: %v", label, err)
		}
	}
	open("Applicants")
	if err := cdpwait.Until(ctx, `document.body.innerText.includes('Create an applicant')`, 20*time.Second); err != nil {
		t.Fatalf("opening Applicants in the menu showed no operations: %v", err)
	}
	open("Create an applicant")
	if err := cdpwait.Until(ctx, `location.hash.length > 1 || location.pathname !== '/docs/'`, 20*time.Second); err != nil {
		t.Errorf("choosing an operation in the menu did not navigate: %v", err)
	}
	if err := cdpwait.Until(ctx, `document.body.innerText.includes('Idempotency-Key')`, 20*time.Second); err != nil {
		t.Errorf("the operation's details did not render: %v", err)
	}
	// axe-core on the page as it is: critical violations fail when
	// strict, serious ones (and critical ones when not strict) are logged
	// as Redoc's markup, which kycd does not restyle (docs/api.md).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](string(axe)+";0")); err != nil {
		t.Fatal(err)
	}
	runAxe := func(where string, strict bool) {
		t.Helper()
		res, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ['violations']}).then(function (r) {
  return JSON.stringify(r.violations.filter(function (v) { return v.impact === 'serious' || v.impact === 'critical'; }).map(function (v) {
    return {id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length};
  }));
})`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("axe: %v", err)
		}
		var vs []struct {
			ID, Impact, Help string
			Nodes            int
		}
		if err := json.Unmarshal([]byte(res), &vs); err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if strict && v.Impact == "critical" {
				t.Errorf("%s: axe %s (%s): %s, %d nodes", where, v.ID, v.Impact, v.Help, v.Nodes)
			} else {
				t.Logf("%s: axe %s (%s, Redoc's markup): %s, %d nodes", where, v.ID, v.Impact, v.Help, v.Nodes)
			}
		}
	}
	runAxe("the reference", true)

	// Search finds an operation by a word of its summary: once typed, the
	// operation's name appears in more places than the menu alone.
	// (Results highlight the word, so the name spans elements: count it
	// in the rendered text.)
	const shown = `document.body.innerText.split('Archive an applicant').length - 1`
	before, err := chromedp.Run(ctx, chromedp.Evaluate[int](shown))
	if err != nil {
		t.Fatal(err)
	}
	// The trigger is clicked until the search box is there: a click while
	// the page still scrolls to the operation can be lost.
	openSearch := `(() => { if (document.querySelector('input[placeholder="Search docs..."]')) return true;
  document.querySelector('[data-testid="search-trigger"]').click(); return false; })()`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](openSearch, chromedp.WithPollingTimeout(20*time.Second), chromedp.WithPollingInterval(500*time.Millisecond))); err != nil {
		t.Fatalf("open the search: %v", err)
	}
	// Typed as key presses into the focused box (the dialog re-renders
	// while it opens, so a node looked up first can be gone).
	focus := `(() => { const i = document.querySelector('input[placeholder="Search docs..."]'); if (!i) return false; i.focus(); return document.activeElement === i; })()`
	if err := cdpwait.Until(ctx, focus, 20*time.Second); err != nil {
		t.Fatalf("focus the search box: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("archive")); err != nil {
		t.Fatalf("type a search: %v", err)
	}
	if err := cdpwait.Until(ctx, fmt.Sprintf(`(%s) > %d`, shown, before), 20*time.Second); err != nil {
		t.Errorf("searching for archive showed no result naming the archive operation (%d before): %v", before, err)
	}
	runAxe("the search dialog", false)
	if dir := os.Getenv("KYCD_TEST_ARTIFACTS"); dir != "" {
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(60)); err == nil {
			_ = os.MkdirAll(filepath.Join(dir, t.Name()), 0o755)
			_ = os.WriteFile(filepath.Join(dir, t.Name(), "docs.jpg"), png, 0o644)
		}
	}
	csp, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__csp`))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range csp {
		// Redoc's search index probes for web workers with Function(…)
		// in a try/catch and, refused, indexes on the page instead: the
		// CSP doing its job (no 'unsafe-eval'), not a fault. Any other
		// refusal is one.
		if strings.HasPrefix(v, "script-src eval ") {
			t.Logf("refused as intended: %s (the search index's worker probe)", v)
			continue
		}
		t.Errorf("CSP violation: %s", v)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the page logged %d problem(s):\n%s", len(problems), strings.Join(problems, "\n"))
	}
}
