package server

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/oasdiff/yaml"
	swaggerfiles "github.com/swaggo/files/v2"

	"kycd/kyc"
)

// OpenAPIYAML is the API's description, the contract the tests hold the
// server to.
//
//go:embed openapi/openapi.yaml
var OpenAPIYAML []byte

// apiDocsJSON renders the description as JSON, with baseURL as its server
// when one is configured.
func apiDocsJSON(baseURL, version string) ([]byte, error) {
	j, err := yaml.YAMLToJSON(OpenAPIYAML)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(j, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	if baseURL != "" {
		doc["servers"] = []any{map[string]any{"url": baseURL, "description": "This kycd."}}
	}
	if info, ok := doc["info"].(map[string]any); ok && version != "" {
		info["x-kycd-version"] = version
	}
	return json.Marshal(doc)
}

// handleAPIDocs handles "GET /v3/api-docs".
func (s *Server) handleAPIDocs(w http.ResponseWriter, r *http.Request) error {
	writeRaw(w, http.StatusOK, s.apiDocs)
	return nil
}

// swaggerInitializer points the UI at our description instead of the
// petstore example the asset module ships with.
const swaggerInitializer = `window.onload = function() {
  window.ui = SwaggerUIBundle({
    url: "/v3/api-docs",
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
};
`

// handleSwaggerUI handles "GET /swagger-ui/" (registered only with --dev).
// index.html is served by hand because http.FileServer redirects it to "./".
func (s *Server) handleSwaggerUI(w http.ResponseWriter, r *http.Request) error {
	name := r.URL.Path[len("/swagger-ui/"):]
	if name == "" {
		name = "index.html"
	}
	// The UI needs inline styles and scripts; loosen the API's defaults here only.
	w.Header().Set("Cache-Control", "public, max-age=3600")
	switch name {
	case "swagger-initializer.js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write([]byte(swaggerInitializer))
		return nil
	case "index.html":
		b, err := fs.ReadFile(swaggerfiles.FS, "index.html")
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(b)
		return nil
	}
	if _, err := fs.Stat(swaggerfiles.FS, name); err != nil {
		return kyc.Errorf(kyc.ENotFound, "No route %s %s.", r.Method, r.URL.Path)
	}
	http.ServeFileFS(w, r, swaggerfiles.FS, name)
	return nil
}
