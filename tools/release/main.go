// Command release builds kycd's release files into a folder, the same
// bytes every time from the same commit and Go toolchain:
//
//	go run ./tools/release [-out dist] [-targets linux/amd64,…] [-check]
//
// It builds the commit checked out (HEAD), exported with git archive into a
// temporary folder: uncommitted changes are left out, and editing the tree
// during a build cannot mix two versions. For each target, a static binary (CGO_ENABLED=0, -trimpath, no VCS
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
	flag.Parse()
	if err := run(*out, strings.Split(*targets, ","), *check); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(out string, targets []string, check bool) error {
	if _, err := os.Stat("CHANGELOG.md"); err != nil {
		return errors.New("run it from the repository's root: go run ./tools/release")
	}
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	src, err := readSource()
	if err != nil {
		return err
	}
	tree, err := os.MkdirTemp("", "kycd-release-src-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tree)
	if err := exportHead(tree); err != nil {
		return err
	}
	// go build . and the archives' docs read the exported tree.
	if err := os.Chdir(tree); err != nil {
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
	modified bool      // always false: HEAD is built, as committed
	time     time.Time // the commit's time, or SOURCE_DATE_EPOCH
}

func readSource() (source, error) {
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
	if status != "" {
		fmt.Fprintln(os.Stderr, "release: note: uncommitted changes are not in the build, which is of HEAD", commit)
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

// exportHead writes the files of HEAD into dir (git archive), as a
// source archive of the commit would hold them.
func exportHead(dir string) error {
	c := exec.Command("git", "archive", "--format=tar", "HEAD")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	pipe, err := c.StdoutPipe()
	if err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		return err
	}
	if err := untar(pipe, dir); err != nil {
		c.Wait()
		return fmt.Errorf("git archive HEAD: %w", err)
	}
	if err := c.Wait(); err != nil {
		return fmt.Errorf("git archive HEAD: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
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
