package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestArchiveReproducible: the same contents make the same archive bytes
// whatever the files' own times, and every entry carries the given time
// and no owner.
func TestArchiveReproducible(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// The guides and their images ship; docs' own tests and test data do not.
	files := []string{"kycd", "README.md", "CHANGELOG.md", "docs/guide.md", "docs/img/a.png", "docs/links_test.go", "docs/testdata/x.md"}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("contents of "+f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	when := time.Unix(1_790_000_000, 0)
	if err := writeArchive("a.tar.gz", when, "kycd"); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	for _, f := range files {
		if err := os.Chtimes(f, later, later); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeArchive("b.tar.gz", when, "kycd"); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile("a.tar.gz")
	b, _ := os.ReadFile("b.tar.gz")
	if string(a) != string(b) {
		t.Fatal("two archives of the same contents differ")
	}
	f, err := os.Open("a.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if !gz.ModTime.IsZero() || gz.Name != "" {
		t.Errorf("gzip header: time %v name %q", gz.ModTime, gz.Name)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		names = append(names, h.Name)
		if !h.ModTime.Equal(when) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: %+v", h.Name, h)
		}
		if h.Name == "kycd" && h.Mode != 0o755 {
			t.Errorf("kycd mode %o", h.Mode)
		}
	}
	if strings.Join(names, ",") != "kycd,README.md,CHANGELOG.md,docs/guide.md,docs/img/a.png" {
		t.Errorf("entries %v", names)
	}
}

// TestChecksumsAndCompare: SHA256SUMS lists every other file sorted, in
// sha256sum's format, and sameFolders notices one changed byte.
func TestChecksumsAndCompare(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		for _, n := range []string{"z.tar.gz", "a.json"} {
			if err := os.WriteFile(filepath.Join(d, n), []byte(n), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := writeChecksums(d); err != nil {
			t.Fatal(err)
		}
	}
	sums, _ := os.ReadFile(filepath.Join(a, "SHA256SUMS"))
	// As `printf a.json | sha256sum` and `printf z.tar.gz | sha256sum` print them.
	want := "6025a12236ee54baceb48b335c5a8e54f073af9cb25fddd990f95e06d6e039d9  a.json\n" +
		"6ca0606eae6175ff3a9d27b2073ca826c65debd83400b86e4e7bab71bc633001  z.tar.gz\n"
	if string(sums) != want {
		t.Errorf("SHA256SUMS:\n%s\nwant\n%s", sums, want)
	}
	if err := sameFolders(a, b); err != nil {
		t.Errorf("same folders: %v", err)
	}
	if err := os.WriteFile(filepath.Join(b, "a.json"), []byte("a.jsoN"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sameFolders(a, b); err == nil || !strings.Contains(err.Error(), "a.json differs") {
		t.Errorf("one changed byte: %v", err)
	}
}

// TestSBOM: the union of the binaries' modules, sorted, the replacement
// named instead of the replaced module, the same bytes twice.
func TestSBOM(t *testing.T) {
	src := source{version: "0.1.0", commit: "abc", time: time.Unix(1_790_000_000, 0)}
	infos := []*debug.BuildInfo{
		{GoVersion: "go1.26.8", Deps: []*debug.Module{
			{Path: "github.com/z/z", Version: "v1.0.0", Sum: "h1:zz="},
			{Path: "github.com/a/a", Version: "v0.2.0", Sum: "h1:aa="},
		}},
		{GoVersion: "go1.26.8", Deps: []*debug.Module{
			{Path: "github.com/a/a", Version: "v0.2.0", Sum: "h1:aa="},
			{Path: "github.com/old/old", Version: "v1.0.0", Replace: &debug.Module{Path: "github.com/new/new", Version: "v1.0.1", Sum: "h1:nn="}},
		}},
	}
	b1, err := sbomFrom(infos, src)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := sbomFrom(infos, src)
	if string(b1) != string(b2) {
		t.Fatal("two SBOMs of the same binaries differ")
	}
	var bom cdxBOM
	if err := json.Unmarshal(b1, &bom); err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, c := range bom.Components {
		refs = append(refs, c.BOMRef)
	}
	want := "pkg:golang/github.com/a/a@v0.2.0,pkg:golang/github.com/new/new@v1.0.1,pkg:golang/github.com/z/z@v1.0.0"
	if strings.Join(refs, ",") != want {
		t.Errorf("components %v, want %s", refs, want)
	}
	if bom.BOMFormat != "CycloneDX" || bom.SpecVersion != "1.5" || bom.Metadata.Timestamp != "2026-09-21T14:13:20Z" ||
		!strings.HasPrefix(bom.SerialNumber, "urn:uuid:") || len(bom.SerialNumber) != 45 || bom.Metadata.Component.Version != "0.1.0" {
		t.Errorf("header: %+v", bom)
	}
	if len(bom.Dependencies) != 1 || len(bom.Dependencies[0].DependsOn) != 3 {
		t.Errorf("dependencies: %+v", bom.Dependencies)
	}
}

// TestUntarRefusesEscapes: an entry naming a path outside the tree is
// refused before anything is written there.
func TestUntarRefusesEscapes(t *testing.T) {
	for _, name := range []string{"../escape", "/abs/path", "a/../../escape"} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: 1})
		tw.Write([]byte("x"))
		tw.Close()
		dir := t.TempDir()
		if err := untar(&buf, filepath.Join(dir, "tree")); err == nil || !strings.Contains(err.Error(), "outside the tree") {
			t.Errorf("%s: %v", name, err)
		}
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "a/b.go", Mode: 0o644, Size: 2})
	tw.Write([]byte("ok"))
	tw.Close()
	dir := t.TempDir()
	if err := untar(&buf, dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a", "b.go")); err != nil || string(b) != "ok" {
		t.Errorf("a/b.go: %q %v", b, err)
	}
}
