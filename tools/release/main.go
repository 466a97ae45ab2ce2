// Command release builds kycd's release files into a folder, the same
// bytes every time from the same commit and Go toolchain:
//
//	go run ./tools/release [-out dist] [-targets linux/amd64,…] [-check]
//
// For each target, a static binary (CGO_ENABLED=0, -trimpath, no VCS
// stamping, the version and commit given with -ldflags -X) in a .tar.gz
// whose entries carry the commit's time (or SOURCE_DATE_EPOCH) and no
// owner; then SHA256SUMS over the archives and the SBOM, and a CycloneDX
// SBOM of the modules linked into the binaries. -check builds everything
// twice, the second time with an empty Go build cache, and fails unless
// both folders are byte-identical.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"kycd/internal/buildinfo"
)

// defaultTargets are the platforms a release ships: Linux servers and
// operators' Macs. Windows is not supported (kycd's service recipe and
// file permissions are Unix).
const defaultTargets = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64"

func main() {
	out := flag.String("out", "dist", "folder for the release files (emptied first)")
	targets := flag.String("targets", defaultTargets, "comma-separated GOOS/GOARCH pairs")
	check := flag.Bool("check", false, "build twice (the second time with an empty build cache) and fail unless the files are byte-identical")
	allowDirty := flag.Bool("allow-dirty", false, "build from a tree with uncommitted changes (the binaries say \"modified\")")
	flag.Parse()
	if err := run(*out, strings.Split(*targets, ","), *check, *allowDirty); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(out string, targets []string, check, allowDirty bool) error {
	// go build . and the docs of the archives are read from the current
	// folder: it must be the repository's root.
	if _, err := os.Stat("CHANGELOG.md"); err != nil {
		return errors.New("run it from the repository's root: go run ./tools/release")
	}
	src, err := readSource(allowDirty)
	if err != nil {
		return err
	}
	if err := release(out, targets, src, ""); err != nil {
		return err
	}
	if !check {
		return nil
	}
	// The second build must not reuse the first one's compiled packages,
	// or the check would only prove that linking is deterministic.
	cache, err := os.MkdirTemp("", "kycd-release-cache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	again := out + ".again"
	defer os.RemoveAll(again)
	if err := release(again, targets, src, cache); err != nil {
		return err
	}
	if err := sameFolders(out, again); err != nil {
		return fmt.Errorf("not reproducible: %w", err)
	}
	fmt.Println("reproducible: a second build with an empty build cache made the same bytes")
	return nil
}

// source is what a release is built from.
type source struct {
	version  string
	commit   string
	modified bool
	time     time.Time // the commit's time, or SOURCE_DATE_EPOCH
}

func readSource(allowDirty bool) (source, error) {
	s := source{version: buildinfo.Read().Version}
	commit, err := git("rev-parse", "HEAD")
	if err != nil {
		return s, err
	}
	s.commit = commit
	status, err := git("status", "--porcelain")
	if err != nil {
		return s, err
	}
	if s.modified = status != ""; s.modified && !allowDirty {
		return s, errors.New("the tree has uncommitted changes: commit them, or pass -allow-dirty for a build that says \"modified\"")
	}
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		if epoch, err = git("log", "-1", "--format=%ct", "HEAD"); err != nil {
			return s, err
		}
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return s, fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", epoch, err)
	}
	s.time = time.Unix(sec, 0).UTC()
	return s, nil
}

func git(args ...string) (string, error) {
	var stderr bytes.Buffer
	c := exec.Command("git", args...)
	c.Stderr = &stderr
	b, err := c.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(b)), nil
}

// release builds every target into out. gocache, when set, is the Go
// build cache to use instead of the user's.
func release(out string, targets []string, src source, gocache string) error {
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "kycd-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	var bins []string
	for _, t := range targets {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(t), "/")
		if !ok {
			return fmt.Errorf("target %q: want GOOS/GOARCH", t)
		}
		bin := filepath.Join(work, goos+"_"+goarch, "kycd")
		fmt.Printf("building %s/%s\n", goos, goarch)
		if err := build(bin, goos, goarch, src, gocache); err != nil {
			return err
		}
		bins = append(bins, bin)
		name := fmt.Sprintf("kycd_%s_%s_%s.tar.gz", src.version, goos, goarch)
		if err := writeArchive(filepath.Join(out, name), src.time, bin); err != nil {
			return err
		}
	}
	sbom, err := makeSBOM(bins, src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("kycd_%s.cdx.json", src.version)), sbom, 0o644); err != nil {
		return err
	}
	return writeChecksums(out)
}

// build compiles kycd for one platform. Everything that could differ
// between machines is fixed: no cgo, paths trimmed, no VCS stamping (the
// commit is given with -X instead, so a source archive builds the same),
// the architecture levels, and no GOFLAGS from the environment.
func build(bin, goos, goarch string, src source, gocache string) error {
	ldflags := strings.Join([]string{
		"-s", "-w",
		"-X", "kycd/internal/buildinfo.version=" + src.version,
		"-X", "kycd/internal/buildinfo.commit=" + src.commit,
		"-X", "kycd/internal/buildinfo.modified=" + strconv.FormatBool(src.modified),
	}, " ")
	c := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, ".")
	c.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch,
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=", "GOEXPERIMENT=")
	if gocache != "" {
		c.Env = append(c.Env, "GOCACHE="+gocache)
	}
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("go build %s/%s: %w", goos, goarch, err)
	}
	return nil
}
