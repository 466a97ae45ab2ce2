package console

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
)

//go:embed static
var staticFiles embed.FS

// asset is one embedded static file with the hash that versions its URL.
type asset struct {
	body        []byte
	hash        string
	contentType string
}

// assets are the console's CSS and JavaScript. Their URLs carry a hash of
// their content, /console/assets/<hash>/<name>, so browsers may keep them
// for a year: a new build changes the hash and thus the URL.
type assets struct {
	files map[string]asset
}

// contentTypes of the static files. mime.TypeByExtension would do, but it
// also reads the host's mime.types, and what a file is served as must not
// depend on the machine (nosniff makes a wrong type fatal).
var contentTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".svg": "image/svg+xml",
}

// mustLoadAssets reads and hashes every embedded static file. They are
// part of the binary, so failing to read one panics at start-up.
func mustLoadAssets() *assets {
	a := &assets{files: map[string]asset{}}
	err := fs.WalkDir(staticFiles, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := staticFiles.ReadFile(p)
		if err != nil {
			return err
		}
		ct := contentTypes[path.Ext(p)]
		if ct == "" {
			return fmt.Errorf("no content type for %s", p)
		}
		sum := sha256.Sum256(body)
		a.files[path.Base(p)] = asset{body: body, hash: hex.EncodeToString(sum[:6]), contentType: ct}
		return nil
	})
	if err != nil {
		panic("console: load assets: " + err.Error())
	}
	return a
}

// url returns the versioned URL of a static file. It panics on a name
// that is not embedded, which the page tests catch.
func (a *assets) url(name string) string {
	f, ok := a.files[name]
	if !ok {
		panic("console: no asset " + name)
	}
	return "/console/assets/" + f.hash + "/" + name
}

// handleAsset handles "GET /console/assets/{hash}/{name}". Only the
// current hash is served: an old hash is a 404 rather than new content
// under a URL that promised the old one.
func (c *console) handleAsset(w http.ResponseWriter, r *http.Request) error {
	f, ok := c.assets.files[r.PathValue("name")]
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
	if _, err := w.Write(f.body); err != nil {
		c.log.DebugContext(r.Context(), "console write asset", "name", r.PathValue("name"), "err", err)
	}
	return nil
}
