package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"kycd/internal/cdpwait"
	"kycd/internal/testtools"
)

const chromiumPath = "/usr/bin/chromium"

// axePath is axe-core as .ci/run installs it (npm ci in tools/axe); it is
// injected into each page by the test, never shipped in the binary.
const axePath = "../tools/axe/node_modules/axe-core/axe.min.js"

// tab is a headless Chromium tab for the console's browser tests.
type tab struct {
	t         *testing.T
	ctx       context.Context
	artifacts string
	width     int64
	shots     int
	axe       string
}

// TestMain reports the browser tests skipped for a missing Chromium or
// axe-core, and fails the run for them unless accepted (testtools).
func TestMain(m *testing.M) { testtools.Main(m) }

func newTab(t *testing.T, width int64) *tab {
	t.Helper()
	testtools.Need(t, chromiumPath, "Chromium ("+chromiumPath+")")
	testtools.Need(t, axePath, "axe-core (tools/axe/node_modules)")
	axe, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath), chromedp.UserDataDir(t.TempDir()), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		// Without these Chromium reaches out to the internet at start.
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("lang", "en-US"), chromedp.WindowSize(int(width), 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	ctx, cancelTime := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancelTime)
	dir := os.Getenv("KYCD_TEST_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	dir = filepath.Join(dir, t.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b := &tab{t: t, ctx: ctx, artifacts: dir, width: width, axe: string(axe)}
	b.do(chromedp.EmulateViewport(width, 900))
	watch := `window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) { window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI); });`
	if _, err := chromedp.Call(ctx, cdpage.AddScriptToEvaluateOnNewDocument, cdpage.AddScriptToEvaluateOnNewDocumentParams{Source: watch}); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.fail(err)
	}
}

func (b *tab) fail(err error) {
	b.t.Helper()
	if png, serr := chromedp.Run(context.WithoutCancel(b.ctx), chromedp.FullScreenshot(100)); serr == nil {
		path := filepath.Join(b.artifacts, "failure.png")
		if os.WriteFile(path, png, 0o644) == nil {
			b.t.Logf("page at the failure: %s", path)
		}
	}
	b.t.Fatal(err)
}

func eval[T any](b *tab, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.fail(fmt.Errorf("evaluate %s: %w", expr, err))
	}
	return v
}

func (b *tab) waitFor(expr string) {
	b.t.Helper()
	if err := cdpwait.Until(b.ctx, expr, 20*time.Second); err != nil {
		b.fail(fmt.Errorf("waiting for %s: %w", expr, err))
	}
}

// open loads path and waits for the page.
func (b *tab) open(base, path string) {
	b.t.Helper()
	b.do(chromedp.Navigate(base + path))
	b.waitFor(`document.readyState === 'complete'`)
}

// at reports whether the page's path is p.
func (b *tab) at(p string) bool { return eval[string](b, `location.pathname`) == p }

func (b *tab) body() string { return eval[string](b, `document.body.innerText`) }

// typeInto focuses a field and types text as key presses.
func (b *tab) typeInto(css, text string) {
	b.t.Helper()
	b.do(chromedp.Focus(chromedp.CSS(css), chromedp.NodeVisible), chromedp.KeyEvent(text))
}

// submit presses Enter in the focused field (the form's default action),
// as a keyboard user does, and waits for the next page.
func (b *tab) submit() {
	b.t.Helper()
	b.navigating(chromedp.KeyEvent("\r"))
}

// click clicks an element that loads a page (a link, a form's button)
// and waits until the new page has loaded.
func (b *tab) click(css string) {
	b.t.Helper()
	b.navigating(chromedp.Click(chromedp.CSS(css), chromedp.NodeVisible))
}

// navigating runs an action that loads a page and waits for it.
func (b *tab) navigating(a chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if _, err := chromedp.RunResponse(b.ctx, a); err != nil {
		b.fail(err)
	}
	b.waitFor(`document.readyState === 'complete'`)
}

// press clicks an element that changes the page in place (a radio).
func (b *tab) press(css string) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(css), chromedp.NodeVisible))
}

// check runs the page checks every console page must pass at this width:
// no Content-Security-Policy violation, no serious or critical axe-core
// violation, nothing wider than the viewport; then it keeps a screenshot.
func (b *tab) check(name string) {
	b.t.Helper()
	if v := eval[[]string](b, `window.__cspViolations || []`); len(v) > 0 {
		b.fail(fmt.Errorf("%s: CSP violations: %v", name, v))
	}
	if eval[string](b, `typeof axe`) == "undefined" {
		eval[any](b, b.axe+";0")
	}
	res, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ['violations']}).then(function (r) {
  return JSON.stringify(r.violations.filter(function (v) { return v.impact === 'serious' || v.impact === 'critical'; })
    .map(function (v) { return {id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(function (n) { return n.target.join(' '); })}; }));
})`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.fail(fmt.Errorf("%s: axe: %w", name, err))
	}
	var violations []map[string]any
	if err := json.Unmarshal([]byte(res), &violations); err != nil {
		b.fail(err)
	}
	if len(violations) > 0 {
		b.shot(name + "-axe")
		b.fail(fmt.Errorf("%s at %d px: axe-core serious/critical violations: %v", name, b.width, violations))
	}
	if w := eval[int64](b, `document.documentElement.scrollWidth`); w > b.width+1 {
		wide := eval[[]string](b, `Array.from(document.querySelectorAll('body *')).filter(function (e) {
  return e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.table-wrap');
}).slice(0, 8).map(function (e) { return e.tagName + '.' + e.className + ' ' + (e.id || '') + ' ' + Math.round(e.getBoundingClientRect().right); })`)
		b.fail(fmt.Errorf("%s at %d px: the page is %d px wide (horizontal scrolling): %v", name, b.width, w, wide))
	}
	b.shot(name)
}

// shot saves a PNG of the whole page.
func (b *tab) shot(name string) {
	b.t.Helper()
	h := max(eval[int64](b, `document.documentElement.scrollHeight`), 900)
	b.do(chromedp.EmulateViewport(b.width, h))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.fail(fmt.Errorf("screenshot %s: %w", name, err))
	}
	b.do(chromedp.EmulateViewport(b.width, 900))
	b.shots++
	path := filepath.Join(b.artifacts, fmt.Sprintf("%02d-%s-%dpx.png", b.shots, name, b.width))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// resize changes the viewport width (both widths are checked in one tab).
func (b *tab) resize(width int64) {
	b.width = width
	b.do(chromedp.EmulateViewport(width, 900))
}

// signOut ends the tab's session (and clears its cookies, as a new
// person at the same computer would find it).
func (b *tab) signOut(base string) {
	b.t.Helper()
	b.click(`.signout button`)
	if _, err := chromedp.Call(b.ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		b.fail(err)
	}
	if !strings.Contains(b.body(), "You are signed out") {
		b.fail(fmt.Errorf("after sign-out: %s", b.body()))
	}
}
