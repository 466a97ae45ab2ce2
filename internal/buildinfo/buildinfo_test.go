package buildinfo

import (
	"os"
	"regexp"
	"runtime/debug"
	"testing"
)

func TestFromSettings(t *testing.T) {
	for _, tt := range []struct {
		name     string
		settings []debug.BuildSetting
		want     Info
	}{
		{"none", nil, Info{Version: "1.2.3"}},
		{"clean", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}, Info{Version: "1.2.3", Commit: "abc"}},
		{"modified", []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}, Info{Version: "1.2.3", Commit: "abc", Modified: true}},
	} {
		if got := fromSettings(Info{Version: "1.2.3"}, tt.settings); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	for _, tt := range []struct {
		in   Info
		want string
	}{
		{Info{Version: "0.1.0"}, "0.1.0 (commit unknown; schema 24)"},
		{Info{Version: "0.1.0", Commit: "abc"}, "0.1.0 (commit abc; schema 24)"},
		{Info{Version: "0.1.0", Commit: "abc", Modified: true}, "0.1.0 (commit abc, modified; schema 24)"},
	} {
		if got := tt.in.Describe(24); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.in, got, tt.want)
		}
	}
}

// semver is the Semantic Versioning 2.0.0 grammar, without a leading v.
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// TestVersionInChangelog keeps the one version and CHANGELOG.md together:
// the version is a semantic version and the changelog has its entry
// (released, "## [0.1.0] - 2026-11-27"), so no release goes out undocumented.
func TestVersionInChangelog(t *testing.T) {
	if !semver.MatchString(version) {
		t.Fatalf("version %q is not a semantic version", version)
	}
	b, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile(`(?m)^## \[` + regexp.QuoteMeta(version) + `\] - \d{4}-\d{2}-\d{2}$`)
	if !entry.Match(b) {
		t.Errorf("CHANGELOG.md has no entry \"## [%s] - YYYY-MM-DD\"", version)
	}
}
