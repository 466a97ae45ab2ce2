package portal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"kycd/internal/cdpwait"
	"kycd/internal/testtools"
)

// chromiumPath is the browser the tests drive.
const chromiumPath = "/usr/bin/chromium"

// TestMain reports the browser tests skipped for a missing Chromium or
// axe-core, and fails the run for them unless accepted (testtools).
func TestMain(m *testing.M) { testtools.Main(m) }

// viewportHeight is a phone's, in CSS pixels (an iPhone 14's 844).
const viewportHeight = 844

// tab is one headless Chromium tab for a browser test, with the place its
// screenshots go.
type tab struct {
	t         *testing.T
	ctx       context.Context
	artifacts string
	width     int64
	shots     int
}

// newTab starts Chromium with a fake camera (a generated test pattern,
// or what extra options say) and opens a tab of width×844 CSS pixels. With camera the page may use
// it without a prompt; without, the browser refuses it to every page, as
// when the applicant answers "Block". Without Chromium the test is skipped, except
// under CI=true, where it fails. Every page the tab loads records the CSP
// violations it causes, for noViolations.
func newTab(t *testing.T, width int64, camera bool, extra ...chromedp.ExecAllocatorOption) *tab {
	t.Helper()
	return newTabFor(t, 90*time.Second, width, camera, extra...)
}

// newTabFor is newTab for a test that needs the browser longer than 90 s:
// the browser lives as long as the context it was started with.
func newTabFor(t *testing.T, timeout time.Duration, width int64, camera bool, extra ...chromedp.ExecAllocatorOption) *tab {
	t.Helper()
	testtools.Need(t, chromiumPath, "Chromium ("+chromiumPath+")")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// Without these Chromium reaches out to the internet at start.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// Containers have a small /dev/shm; Chromium crashes when it fills.
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		// A date field's order (month/day/year) follows the browser's
		// locale; typeDate types for en-US whatever the host's is.
		chromedp.Flag("lang", "en-US"),
		chromedp.Env("LANGUAGE=en_US", "LC_ALL=en_US.UTF-8", "LANG=en_US.UTF-8"),
		chromedp.WindowSize(int(width), viewportHeight),
	}
	if camera {
		// Grants every request as if the applicant pressed "Allow"; it
		// would also override the denial below.
		opts = append(opts, chromedp.Flag("use-fake-ui-for-media-stream", true))
	}
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	ctx, cancelTime := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelTime)

	dir := os.Getenv("KYCD_TEST_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	dir = filepath.Join(dir, t.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b := &tab{t: t, ctx: ctx, artifacts: dir, width: width}
	// Injected by the protocol, so the page's own CSP does not apply to it.
	watch := `window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
});`
	b.do(chromedp.EmulateViewport(width, viewportHeight)) // starts the browser
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watch}); err != nil {
		t.Fatal(err)
	}
	if !camera {
		_, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: "camera"}, Setting: browser.PermissionSettingDenied})
		if err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// do runs actions, failing the test (with a screenshot of the page as it
// was) on the first error.
func (b *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.fail(err)
	}
}

func (b *tab) fail(err error) {
	b.t.Helper()
	path := filepath.Join(b.artifacts, "failure.png")
	if png, serr := chromedp.Run(context.WithoutCancel(b.ctx), chromedp.FullScreenshot(100)); serr == nil {
		if werr := os.WriteFile(path, png, 0o644); werr == nil {
			b.t.Logf("page at the failure: %s", path)
		}
	}
	b.t.Fatal(err)
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](b *tab, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.fail(fmt.Errorf("evaluate %s: %w", expr, err))
	}
	return v
}

// waitFor waits until a JavaScript expression is true.
func (b *tab) waitFor(expr string) { b.waitUpTo(20*time.Second, expr) }

// waitUpTo is waitFor for something slower: the server analysing a camera
// check on a busy machine.
func (b *tab) waitUpTo(d time.Duration, expr string) {
	b.t.Helper()
	if err := cdpwait.Until(b.ctx, expr, d); err != nil {
		b.fail(fmt.Errorf("waiting for %s: %w", expr, err))
	}
}

// text returns the text of the element with id.
func (b *tab) text(id string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.ID(id)))
	if err != nil {
		b.fail(fmt.Errorf("text of #%s: %w", id, err))
	}
	return strings.TrimSpace(s)
}

// click clicks the first visible element matching a CSS selector.
func (b *tab) click(css string) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(css), chromedp.NodeVisible))
}

// shot saves a PNG of the whole page as it is now. The viewport grows to
// the page's height for it: capturing beyond the viewport sometimes cut
// long pages short here.
func (b *tab) shot(name string) {
	b.t.Helper()
	h := max(eval[int64](b, `document.documentElement.scrollHeight`), viewportHeight)
	b.do(chromedp.EmulateViewport(b.width, h))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.fail(fmt.Errorf("screenshot %s: %w", name, err))
	}
	b.do(chromedp.EmulateViewport(b.width, viewportHeight))
	b.shots++
	path := filepath.Join(b.artifacts, fmt.Sprintf("%02d-%s-%dpx.png", b.shots, name, b.width))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot %s", path)
}

// noViolations fails when the page broke its Content-Security-Policy
// (an inline script or style, a foreign source) since it loaded.
func (b *tab) noViolations() {
	b.t.Helper()
	if v := eval[[]string](b, `window.__cspViolations || []`); len(v) > 0 {
		b.fail(fmt.Errorf("CSP violations: %v", v))
	}
}

// typeDate types d into the date field with id as a keyboard user does:
// in en-US order, the browser moving from month to day to year by itself.
func (b *tab) typeDate(id string, d time.Time) {
	b.t.Helper()
	b.do(chromedp.Focus(chromedp.ID(id)), chromedp.KeyEvent(d.Format("01022006")))
	if got := eval[string](b, `document.getElementById('`+id+`').value`); got != d.Format(time.DateOnly) {
		b.fail(fmt.Errorf("typed %s into #%s, which reads %q", d.Format(time.DateOnly), id, got))
	}
}

// paste replaces the content of the field with id as select-all and
// paste do: the text at once, firing input, not as key presses.
func (b *tab) paste(id, text string) {
	b.t.Helper()
	b.do(chromedp.Focus(chromedp.ID(id)))
	eval[any](b, `document.getElementById('`+id+`').select()`)
	if _, err := chromedp.Call(b.ctx, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		b.fail(fmt.Errorf("paste into #%s: %w", id, err))
	}
}

// step waits until the step with id is the one shown, and that the focus
// moved to its heading (keyboard and screen-reader users start there).
func (b *tab) step(id string) {
	b.t.Helper()
	b.waitFor(`(function () { var s = document.getElementById('step-` + id + `');
  return s && !s.hidden && document.activeElement === s.querySelector('h1'); })()`)
}
