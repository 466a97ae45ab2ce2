package cmd_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestGitignoreKeepsDatabaseAndKeysOut: a new user who runs kycd in the
// checkout and commits everything commits neither the database nor its
// keys (issue #9).
func TestGitignoreKeepsDatabaseAndKeysOut(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is missing")
		}
		t.Skip("git is missing")
	}
	ignored := []string{"kyc.db", "kyc.db-wal", "kyc.db-shm", "kyc.db.master-key", "kyc.db.secret-key", "kyc.db.backup",
		"prod.master-key", "other.db.secret-key", "master.key", ".kyc.db-litestream/ltx/0/x.ltx", "cmd/kyc.db"}
	kept := []string{"main.go", "store/schema.sql", "README.md", "face/models/LICENSE"}
	for _, p := range append(ignored, kept...) {
		err := exec.Command(git, "-C", "..", "check-ignore", "-q", "--no-index", p).Run()
		want := !strings.Contains(strings.Join(kept, " "), p)
		if got := err == nil; got != want {
			t.Errorf("git check-ignore %s: ignored %v, want %v", p, got, want)
		}
	}
}

// TestReadmeSaysTheFirstRunIsSlow: the first go run compiles for a minute
// or two in silence; the README says so and gives the faster second form.
func TestReadmeSaysTheFirstRunIsSlow(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	head := string(b)[:min(len(b), 2000)]
	for _, want := range []string{"go run . serve --db kyc.db", "prints nothing", "go build -o kycd . && ./kycd serve --db kyc.db"} {
		if !strings.Contains(head, want) {
			t.Errorf("the README's start does not say %q", want)
		}
	}
}
