package cmd_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestAPIGuideNamesEveryEventType is issue 23 item 17: the API guide
// (docs/api.md, where the README's table moved) names every event type an
// endpoint can subscribe to, and says what an empty list subscribes to.
func TestAPIGuideNamesEveryEventType(t *testing.T) {
	b, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(b)
	for _, typ := range kyc.EventTypes {
		if !strings.Contains(guide, "| `"+string(typ)+"` |") {
			t.Errorf("docs/api.md's table of event types lacks %s", typ)
		}
	}
	if !strings.Contains(guide, "an empty or missing list means every type") {
		t.Error("docs/api.md does not say what an empty eventTypes list means")
	}
}

// TestDocsSayHowToRunEverything is issue 23 item 20: the development guide
// says how to install what the browser and parity tests need, the README
// points there from its set-up commands, and the script they name exists,
// parses, and installs every tools/ npm package.
func TestDocsSayHowToRunEverything(t *testing.T) {
	b, err := os.ReadFile("../docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(b)
	for _, want := range []string{"To run every test locally", "`tools/setup`", "KYCD_TEST_STRICT=1", "SKIPPED: 7 tests need axe-core"} {
		if !strings.Contains(guide, want) {
			t.Errorf("docs/development.md does not say %q", want)
		}
	}
	b, err = os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go test ./...", "tools/setup", "(docs/development.md)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the README does not say %q", want)
		}
	}
	fi, err := os.Stat("../tools/setup")
	if err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("tools/setup: %v %v, want an executable script", fi, err)
	}
	if out, err := exec.Command("bash", "-n", "../tools/setup").CombinedOutput(); err != nil {
		t.Fatalf("tools/setup does not parse: %v %s", err, out)
	}
	script, _ := os.ReadFile("../tools/setup")
	locks, _ := filepath.Glob("../tools/*/package-lock.json")
	for _, l := range locks {
		dir := filepath.Base(filepath.Dir(l))
		if dir == "clientgen" {
			continue
		}
		if !strings.Contains(string(script), dir) {
			t.Errorf("tools/setup does not install tools/%s", dir)
		}
	}
}
