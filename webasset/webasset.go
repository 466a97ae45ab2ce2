// Package webasset serves a page's embedded CSS, JavaScript and images
// under content-hashed URLs (<prefix>/<hash>/<name>), so browsers may keep
// them for a year: a new build changes the hash and thus the URL. The
// portal and the console each have one Set.
package webasset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
)

// file is one embedded static file with the hash that versions its URL.
type file struct {
	body        []byte
	hash        string
	contentType string
}

// Set is the static files of one part of the site.
type Set struct {
	prefix string
	files  map[string]file
}

// contentTypes of the static files. mime.TypeByExtension would do, but it
// also reads the host's mime.types, and what a file is served as must not
// depend on the machine (nosniff makes a wrong type fatal).
var contentTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".svg": "image/svg+xml",
}

// MustLoad reads and hashes every file under dir of fsys, to be served
// under prefix (e.g. "/portal/assets"). The files are part of the binary,
// so failing to read one panics at start-up.
func MustLoad(fsys fs.FS, dir, prefix string) *Set {
	s := &Set{prefix: prefix, files: map[string]file{}}
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		ct := contentTypes[path.Ext(p)]
		if ct == "" {
			return fmt.Errorf("no content type for %s", p)
		}
		sum := sha256.Sum256(body)
		s.files[path.Base(p)] = file{body: body, hash: hex.EncodeToString(sum[:6]), contentType: ct}
		return nil
	})
	if err != nil {
		panic("webasset: load " + prefix + ": " + err.Error())
	}
	return s
}

// URL returns the versioned URL of a static file. It panics on a name
// that is not embedded, which the page tests catch.
func (s *Set) URL(name string) string {
	f, ok := s.files[name]
	if !ok {
		panic("webasset: no asset " + name + " under " + s.prefix)
	}
	return s.prefix + "/" + f.hash + "/" + name
}

// Serve answers "GET <prefix>/{hash}/{name}". Only the current hash is
// served: an old hash is a 404 rather than new content under a URL that
// promised the old one. It returns only the error of writing the body,
// which the caller logs (the client went away).
func (s *Set) Serve(w http.ResponseWriter, r *http.Request) error {
	f, ok := s.files[r.PathValue("name")]
	if !ok || f.hash != r.PathValue("hash") {
		http.Error(w, "Not found.", http.StatusNotFound)
		return nil
	}
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", `"`+f.hash+`"`)
	if r.Header.Get("If-None-Match") == `"`+f.hash+`"` {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	_, err := w.Write(f.body)
	return err
}
