package console_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"kycd/console"
	"kycd/kyc"
	"kycd/store/storetest"
)

// consoleTextParams are the query and form names the console's pages and
// forms read (filters, paging, notes, names): each is sent bad.
var consoleTextParams = []string{"q", "page", "env", "actor", "action", "resource", "category", "from", "to", "before", "claim",
	"reason", "review", "month", "notice", "next", "all", "token", "email", "password", "code", "decision", "reasonCode", "note",
	"name", "role", "url", "description", "endpoint", "status", "eventType", "source", "kind", "format", "provider", "days", "available",
	"roundRobin",
	"tag", "body", "reasonCodes", "label", "environment"}

// badConsoleText is badText of the API's test, already decoded: NUL and
// bytes that are not UTF-8.
var badConsoleText = []string{"\x00", "kyc_\x00", "\xff", "app_\xc3\x28", "\xed\xa0\x80"}

var pathParam = regexp.MustCompile(`\{[a-zA-Z]+\}`)

// TestBadTextEveryConsoleRoute walks every console route, signed in as an
// installation admin (every permission), with each bad value in each path
// parameter, and in each query parameter (GET) or form field (POST), on
// both engines: never a 500 (issue 23 item 4: PostgreSQL answered 500 to
// 18 console requests where SQLite answered 404/400).
func TestBadTextEveryConsoleRoute(t *testing.T) {
	for _, engine := range storetest.Engines {
		t.Run(engine, func(t *testing.T) {
			e := newEnvOn(t, engine)
			inst := e.mustInstallationAdmin("inst@acme.example", "Test Installation")
			b := e.browser()
			b.login(inst)
			calls := 0
			for _, rt := range console.Routes() {
				method, pattern, _ := strings.Cut(rt.Pattern, " ")
				if pattern == "/console/logout" {
					continue
				}
				pattern = strings.Replace(pattern, "{env}", string(kyc.Live), 1)
				pattern = strings.TrimSuffix(pattern, "{$}")
				params := pathParam.FindAllString(pattern, -1)
				fill := func(bad, in string) string {
					out := pattern
					for _, p := range params {
						v := "x"
						if p == in {
							v = url.PathEscape(bad)
						}
						out = strings.Replace(out, p, v, 1)
					}
					return out
				}
				for _, bad := range badConsoleText {
					var sends []func() *page
					for _, p := range params {
						path := fill(bad, p)
						sends = append(sends, func() *page { return b.do(method, path, formFor(method)) })
					}
					plain := fill("", "")
					for _, name := range consoleTextParams {
						if method == "GET" {
							q := url.Values{name: {bad}}
							sends = append(sends, func() *page { return b.get(plain + "?" + q.Encode()) })
						} else {
							sends = append(sends, func() *page { return b.do(method, plain, url.Values{name: {bad}}) })
						}
					}
					for _, send := range sends {
						calls++
						if r := send(); r.status >= 500 {
							t.Errorf("%s %s (bad %q) → %d", method, pattern, bad, r.status)
						}
					}
				}
			}
			if calls < 500 {
				t.Fatalf("only %d requests: the walk missed routes", calls)
			}
			// The session survived the walk: nothing above signed it out.
			if r := b.get("/console/live/queue"); r.status != 200 {
				t.Fatalf("after the walk: %d", r.status)
			}
		})
	}
}

// formFor is an empty form for a POST (the bad value is in the path).
func formFor(method string) url.Values {
	if method == "POST" {
		return url.Values{"x": {"1"}}
	}
	return nil
}
