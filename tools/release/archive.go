package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// topDocs go into every archive beside the binary, from the repository
// root, followed by the guides the README links to (docFiles).
var topDocs = []string{"README.md", "CHANGELOG.md"}

// docFiles lists the files of an archive besides the binary: topDocs, then
// every file under docs/ in lexical order, so that the README's links to
// the guides and the guides' screenshots resolve in the unpacked archive.
// Tests and test data under docs/ are the repository's, not the reader's.
func docFiles() ([]string, error) {
	files := slices.Clone(topDocs)
	err := filepath.WalkDir("docs", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, "_test.go") || !d.Type().IsRegular() {
			return nil
		}
		files = append(files, filepath.ToSlash(p))
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return files, nil
	}
	return files, err
}

// writeArchive writes a .tar.gz of the binary and docs whose bytes depend
// only on their contents and mtime: entries in a fixed order, each with
// mtime, no owner names, uid/gid 0, fixed modes, PAX-free USTAR headers,
// and a gzip header without a name or time.
func writeArchive(path string, mtime time.Time, bin string) error {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	add := func(name, file string, mode int64) error {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		h := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(b)),
			ModTime: mtime, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		_, err = tw.Write(b)
		return err
	}
	if err := add("kycd", bin, 0o755); err != nil {
		return err
	}
	docs, err := docFiles()
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := add(d, d, 0o644); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// untar extracts git archive's tar stream into dir: regular files,
// folders and symbolic links; any name leaving dir is refused.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !filepath.IsLocal(h.Name) {
			return fmt.Errorf("entry %q is outside the tree", h.Name)
		}
		p := filepath.Join(dir, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o777)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.Symlink(h.Linkname, p); err != nil {
				return err
			}
		case tar.TypeXGlobalHeader: // git archive's commit id comment
		default:
			return fmt.Errorf("entry %q: type %c not expected from git archive", h.Name, h.Typeflag)
		}
	}
}

// writeChecksums writes SHA256SUMS over every file of dir, sorted by
// name, in the format `sha256sum -c` reads.
func writeChecksums(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && e.Name() != "SHA256SUMS" {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	var sums bytes.Buffer
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(h[:]), n)
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), sums.Bytes(), 0o644)
}

// sameFolders fails unless a and b hold the same file names with the
// same bytes.
func sameFolders(a, b string) error {
	ea, err := os.ReadDir(a)
	if err != nil {
		return err
	}
	eb, err := os.ReadDir(b)
	if err != nil {
		return err
	}
	if len(ea) != len(eb) {
		return fmt.Errorf("%s has %d files, %s %d", a, len(ea), b, len(eb))
	}
	for i, e := range ea {
		if eb[i].Name() != e.Name() {
			return fmt.Errorf("%s has %s where %s has %s", a, e.Name(), b, eb[i].Name())
		}
		x, err := os.ReadFile(filepath.Join(a, e.Name()))
		if err != nil {
			return err
		}
		y, err := os.ReadFile(filepath.Join(b, e.Name()))
		if err != nil {
			return err
		}
		if !bytes.Equal(x, y) {
			return fmt.Errorf("%s differs between %s and %s", e.Name(), a, b)
		}
	}
	return nil
}
