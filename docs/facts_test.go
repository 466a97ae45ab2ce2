package docs_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// section returns the text of md from the heading to the next heading of
// the same level.
func section(t *testing.T, md, heading string) string {
	t.Helper()
	i := strings.Index(md, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("no %q heading", heading)
	}
	rest := md[i+len(heading)+2:]
	level := heading[:strings.IndexByte(heading, ' ')+1]
	if j := strings.Index(rest, "\n"+level); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestConfigurationNamesEveryServeFlag: every flag kycd serve --help lists
// is in operations.md's Configuration table, by name or by a group such
// as `--smtp-*`, so that a new setting cannot be added undocumented.
func TestConfigurationNamesEveryServeFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kycd")
	}
	b, err := os.ReadFile("operations.md")
	if err != nil {
		t.Fatal(err)
	}
	table := section(t, string(b), "## Configuration")
	out, err := exec.Command("go", "run", "..", "serve", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("kycd serve --help: %v\n%s", err, out)
	}
	flags := regexp.MustCompile(`(?m)^\s+(?:-\w, )?(--[a-z0-9-]+)`).FindAllStringSubmatch(string(out), -1)
	if len(flags) < 20 {
		t.Fatalf("found %d flags in kycd serve --help: the pattern no longer reads it\n%s", len(flags), out)
	}
	groups := regexp.MustCompile("`(--[a-z0-9]+-)\\*`").FindAllStringSubmatch(table, -1)
	for _, f := range flags {
		name := f[1]
		if name == "--help" || strings.Contains(table, "`"+name+"`") || strings.Contains(table, "`"+name+" ") {
			continue
		}
		covered := false
		for _, g := range groups {
			covered = covered || strings.HasPrefix(name, g[1])
		}
		if !covered {
			t.Errorf("operations.md's Configuration table does not name %s", name)
		}
	}
}

// TestOperatorCommandsNameEveryCommand: every command of kycd --help is
// in operations.md's synopsis of operator commands.
func TestOperatorCommandsNameEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kycd")
	}
	b, err := os.ReadFile("operations.md")
	if err != nil {
		t.Fatal(err)
	}
	synopsis := section(t, string(b), "## Operator commands")
	// "kycd users list|disable|enable|link …" names four commands.
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^kycd ([a-z-]+)(?: ([a-z|-]+))?`).FindAllStringSubmatch(synopsis, -1) {
		named[m[1]] = true
		for _, sub := range strings.Split(m[2], "|") {
			if sub != "" {
				named[m[1]+" "+sub] = true
			}
		}
	}
	out, err := exec.Command("go", "run", "..", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("kycd --help: %v\n%s", err, out)
	}
	_, list, ok := strings.Cut(string(out), "Commands:")
	if !ok {
		t.Fatalf("kycd --help lists no commands:\n%s", out)
	}
	cmds := regexp.MustCompile(`(?m)^  ([a-z-]+)(?: ([a-z][a-z-]*))?`).FindAllStringSubmatch(list, -1)
	if len(cmds) < 20 {
		t.Fatalf("found %d commands in kycd --help: the pattern no longer reads it", len(cmds))
	}
	for _, c := range cmds {
		name := strings.TrimSpace(c[1] + " " + c[2])
		if !named[name] {
			t.Errorf("operations.md's operator commands do not name kycd %s", name)
		}
	}
}
