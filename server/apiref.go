package server

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"net/http"
	"strings"
)

// apiReferenceHTML is the API reference page: openapi.yaml rendered by
// Redoc (tools/apidocs/build, @redocly/cli build-docs --inlineBundle),
// committed, and checked against the description by TestAPIReferenceFresh
// and by CI's rebuild.
//
//go:embed apidocs/index.html
var apiReferenceHTML []byte

// apiReferenceCSP allows the page's own inline scripts by their SHA-256
// and nothing else to run. Redoc writes its styles into <style> elements
// at run time (styled-components), which no hash can name, hence
// 'unsafe-inline' for styles only: a style cannot run code. Nothing may be
// fetched but from this server (the description is in the page), and the
// page may not be framed.
var apiReferenceCSP = "default-src 'none'; script-src " + strings.Join(inlineScriptHashes(apiReferenceHTML), " ") +
	"; style-src 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// inlineScriptHashes returns the CSP source of each inline <script>
// element of page: 'sha256-<base64 of the SHA-256 of its text>'. Redoc
// escapes "</script>" inside its scripts as "<\/script>", so the first
// closing tag after an opening one ends it.
func inlineScriptHashes(page []byte) []string {
	var out []string
	rest := page
	for {
		i := bytes.Index(rest, []byte("<script"))
		if i < 0 {
			return out
		}
		rest = rest[i:]
		open := bytes.IndexByte(rest, '>')
		if open < 0 {
			return out
		}
		if bytes.Contains(rest[:open], []byte(" src=")) {
			rest = rest[open:]
			continue
		}
		body := rest[open+1:]
		end := bytes.Index(body, []byte("</script>"))
		if end < 0 {
			return out
		}
		sum := sha256.Sum256(body[:end])
		out = append(out, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
		rest = body[end:]
	}
}

// handleAPIReference handles "GET /docs" and "GET /docs/".
func (s *Server) handleAPIReference(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", apiReferenceCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	// The page changes only with the binary.
	h.Set("Cache-Control", "public, max-age=3600")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(apiReferenceHTML)
	}
	return nil
}
