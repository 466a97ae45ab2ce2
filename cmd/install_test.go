package cmd_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kycd/internal/testtools"
)

// guideBlock returns the first fenced block of the given language after
// heading in a guide. The fence's info string may carry the docs runner's
// marker after the language ("```sh {skip: …}", docs/run_test.go).
func guideBlock(t *testing.T, guide, heading, lang string) string {
	t.Helper()
	i := strings.Index(guide, heading)
	if i < 0 {
		t.Fatalf("the guide has no %q", heading)
	}
	rest := guide[i:]
	m := regexp.MustCompile("(?m)^```" + regexp.QuoteMeta(lang) + "( [^\n]*)?\n").FindStringIndex(rest)
	if m == nil {
		t.Fatalf("no %s block after %q", lang, heading)
	}
	rest = rest[m[1]:]
	return rest[:strings.Index(rest, "```")]
}

// TestInstallRecipe is issue 23 item 18: the install recipe (once in the
// README, now in docs/operations.md)
// failed (/etc/kycd was never created). Its shell steps run here under a
// temporary root, as the user running the test: useradd (a real system
// user), runuser (which needs root) and systemd are what is left out. The
// binary is this test binary. Then the unit's ExecStart runs against what
// the steps made, without its S3 replica and list updates (no network).
func TestInstallRecipe(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		testtools.Missing(t, "openssl", err)
	}
	b, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(b)
	script := guideBlock(t, guide, "## Install as a service", "sh")
	unit := guideBlock(t, guide, "## Install as a service", "ini")

	root := t.TempDir()
	for _, d := range []string{"etc", "var/lib", "usr/local/bin"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	grp, err := user.LookupGroupId(me.Gid)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "usr/local/bin/kycd")
	wrapper := "#!/bin/sh\nKYCD_TEST_EXEC=1 exec '" + os.Args[0] + "' \"$@\"\n"
	var steps []string
	for _, line := range strings.SplitAfter(script, "\n") {
		switch {
		case strings.HasPrefix(line, "CGO_ENABLED=0 go build -o /usr/local/bin/kycd ."):
			continue // the binary is this test's (below)
		case strings.HasPrefix(line, "useradd "):
			if !strings.Contains(line, "--home-dir /var/lib/kycd --create-home") {
				t.Errorf("useradd no longer makes /var/lib/kycd: %s", line)
			}
			line = "mkdir -m 0700 /var/lib/kycd\n" // what --create-home does
		}
		line = strings.ReplaceAll(line, "runuser -u kycd -- ", "")
		steps = append(steps, line)
	}
	sh := strings.Join(steps, "")
	for _, r := range [][2]string{
		{"-o root", "-o " + me.Username}, {"-o kycd", "-o " + me.Username}, {"-g kycd", "-g " + grp.Name},
		{"/etc/kycd", root + "/etc/kycd"}, {"/var/lib/kycd", root + "/var/lib/kycd"}, {"/usr/local/bin/kycd", bin},
	} {
		sh = strings.ReplaceAll(sh, r[0], r[1])
	}
	if err := os.WriteFile(bin, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", sh)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the install steps of docs/operations.md failed: %v\n%s\nscript:\n%s", err, out, sh)
	}
	if !regexp.MustCompile(`(?m)^organization org_`).Match(out) || !strings.Contains(string(out), "admin-link https://kyc.example.com/console/") {
		t.Errorf("kycd init in the recipe printed no organization or admin link:\n%s", out)
	}
	for path, mode := range map[string]os.FileMode{
		"etc/kycd": 0o750 | os.ModeDir, "etc/kycd/kycd.env": 0o600, "etc/kycd/master.key": 0o400,
		"var/lib/kycd/kyc.db": 0o600, "var/lib/kycd/kyc.db.secret-key": 0o600,
	} {
		fi, err := os.Stat(filepath.Join(root, path))
		if err != nil || fi.Mode() != mode {
			t.Errorf("%s: %v %v, want mode %v", path, fi, err, mode)
		}
	}

	// The unit: its files are the ones the steps made, and its ExecStart
	// serves them.
	for _, want := range []string{"EnvironmentFile=/etc/kycd/kycd.env", "ReadWritePaths=/var/lib/kycd", "User=kycd"} {
		if !strings.Contains(unit, want) {
			t.Errorf("the unit lacks %s", want)
		}
	}
	m := regexp.MustCompile(`(?s)ExecStart=(.*?[^\\])\n`).FindStringSubmatch(unit)
	if m == nil {
		t.Fatal("the unit has no ExecStart")
	}
	args := strings.Fields(strings.ReplaceAll(m[1], "\\\n", " "))
	if args[0] != "/usr/local/bin/kycd" || args[1] != "serve" {
		t.Fatalf("ExecStart runs %v", args[:2])
	}
	var db string
	var extra []string
	for i := 2; i < len(args); i++ {
		switch a := args[i]; a {
		case "--db":
			db = strings.ReplaceAll(args[i+1], "/var/lib/kycd", root+"/var/lib/kycd")
			i++
		case "--addr", "--replicate":
			i++ // a free port instead; no S3 here
		case "--update-lists":
		default:
			extra = append(extra, strings.ReplaceAll(a, "/etc/kycd", root+"/etc/kycd"))
		}
	}
	p := startServe(t, db, extra...)
	if strings.Contains(p.log(), "svc_test_") || strings.Contains(p.log(), "readable by other users") {
		t.Errorf("serve on the installed database:\n%s", p.log())
	}
	// Ready within a probe's patience: on a loaded machine the first
	// database probe right after start-up can exceed its 2 s bound, and a
	// service manager's readiness probe retries too.
	var last string
	for deadline := time.Now().Add(15 * time.Second); ; {
		res, err := http.Get("http://" + p.addr + "/readyz")
		if err == nil {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
			last = fmt.Sprintf("%d %s", res.StatusCode, body)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never 200 within 15 s; last: %s", last)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
