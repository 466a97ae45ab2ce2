package docs_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestGuideThatRotsFails shows the runner failing a guide that no longer
// matches kycd, and naming the block: the real quickstart with one route
// renamed, as a careless edit (or a changed API) would leave it, and
// small guides that break in the other ways a guide breaks.
func TestGuideThatRotsFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs kycd")
	}
	quickstart, err := os.ReadFile("quickstart.md")
	if err != nil {
		t.Fatal(err)
	}
	// The request-creating call, with the route misspelt.
	const route = `curl -sf "$BASE/v1/kyc-requests" -H "Authorization: Bearer $KEY" -H 'Idempotency-Key: order-42'`
	if !strings.Contains(string(quickstart), route) {
		t.Fatalf("quickstart.md no longer has %s: update this test", route)
	}
	rotten := strings.Replace(string(quickstart), route, strings.Replace(route, "kyc-requests", "kyc-request", 1), 1)
	routeLine := 1 + strings.Count(rotten[:strings.Index(rotten, "/v1/kyc-request\"")], "\n")
	fenceLine := 0 // the opening fence of the block holding it
	for i, l := range strings.Split(rotten, "\n")[:routeLine] {
		if strings.HasPrefix(l, "```sh") {
			fenceLine = i + 1
		}
	}
	cases := []struct {
		name, md string
		want     string // in the error; "" = must pass
	}{
		{"the quickstart, one route renamed", rotten, fmt.Sprintf("block at line %d", fenceLine)},
		{"a claim the output no longer bears out", "# g\n\n```sh {run}\necho ok\n```\n\n```sh {run}\nSTATUS=approved\ntest \"$STATUS\" = rejected\n```\n", "block at line 7"},
		{"a failure inside a pipe", "```sh {run}\nfalse | cat\n```\n", "block at line 1"},
		{"an unset variable", "```sh {run}\necho \"$NOT_SET_ANYWHERE\"\n```\n", "block at line 1"},
		{"a block nobody marked", "```sh\necho never run\n```\n", "must be marked {run} or {skip: why}"},
		{"a skip without a reason", "```sh {skip:}\necho x\n```\n", "must say why"},
		{"an unknown marker", "```sh {runn}\necho x\n```\n", "must be marked"},
		{"an unclosed block", "```sh {run}\necho x\n", "never closed"},
		{"a hung step", "```sh {run}\nsleep 60\n```\n", "timed out"},
		// Controls: these pass, so the failures above are the runner's
		// verdict and not its inability to run anything.
		{"a guide that holds", "```sh {run}\nexport X=1\n```\ntext\n```sh {run}\ntest \"$X\" = 1\n```\n```go\nnot shell, not run\n```\n", ""},
		{"a server left running is stopped", "```sh {run}\nsleep 300 > /dev/null 2>&1 &\nsleep 300 &\n```\n", ""},
		{"a skipped block is not run", "```sh {skip: needs systemd}\nexit 1\n```\n```sh {run}\ntrue\n```\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			res, err := runGuide(t, c.name, c.md, 2*time.Second+map[bool]time.Duration{true: 3 * time.Minute}[len(c.md) > 1000])
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("failed: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("passed; want a failure naming %q\noutput:\n%s", c.want, res.output)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error does not name %q:\n%v", c.want, err)
			}
			if took := time.Since(start); took > 10*time.Second && len(c.md) < 1000 {
				t.Errorf("took %s: background processes held the runner", took)
			}
		})
	}
}
