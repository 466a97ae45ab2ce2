// Package buildinfo says which kycd this binary is: its semantic version,
// the commit it was built from and whether that tree had uncommitted
// changes. The release build (tools/release) sets them with -ldflags -X;
// a plain `go build` in a git checkout gets the commit from the build
// information the Go toolchain stamps (vcs.revision, vcs.modified).
package buildinfo

import (
	"runtime/debug"
	"strconv"
)

// version is the one place the version is written. It is the version of
// the next release while work goes on and of the release at its tag; the
// release build may override it (-X kycd/internal/buildinfo.version=…) for
// a release candidate. CHANGELOG.md's newest entry must name it (tested).
var version = "0.1.0"

// commit and modified are set by the release build with -ldflags -X
// (modified as "true" or "false"); empty means "ask the toolchain".
var (
	commit   = ""
	modified = ""
)

// Info is what a binary knows of itself.
type Info struct {
	Version  string // semantic version, without a leading v
	Commit   string // full git commit hash; empty when unknown (go test, a source archive)
	Modified bool   // the tree had uncommitted changes when it was built
}

// Read returns this binary's Info: the -ldflags values where the release
// build set them, else the toolchain's vcs.revision and vcs.modified.
func Read() Info {
	info := Info{Version: version, Commit: commit, Modified: modified == "true"}
	if commit != "" {
		return info
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	return fromSettings(info, bi.Settings)
}

// fromSettings fills Commit and Modified from the toolchain's vcs.* build
// settings (split out so it can be tested: a test binary carries none).
func fromSettings(info Info, settings []debug.BuildSetting) Info {
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// Describe is the line `kycd version` prints after "kycd ", with the
// schema version this binary migrates databases to: "0.1.0 (commit
// 0123abcd…, modified; schema 24)"; "commit unknown" without one.
func (i Info) Describe(schema int) string {
	c := "unknown"
	if i.Commit != "" {
		c = i.Commit
	}
	s := i.Version + " (commit " + c
	if i.Modified {
		s += ", modified"
	}
	return s + "; schema " + strconv.Itoa(schema) + ")"
}
