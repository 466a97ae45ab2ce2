package console

import (
	"embed"
	"net/http"

	"kycd/webasset"
)

//go:embed static
var staticFiles embed.FS

// mustLoadAssets reads and hashes the console's static files, served under
// /console/assets/<hash>/<name>.
func mustLoadAssets() *webasset.Set {
	return webasset.MustLoad(staticFiles, "static", "/console/assets")
}

// handleAsset handles "GET /console/assets/{hash}/{name}".
func (c *console) handleAsset(w http.ResponseWriter, r *http.Request) error {
	if err := c.assets.Serve(w, r); err != nil {
		c.log.DebugContext(r.Context(), "console write asset", "name", r.PathValue("name"), "err", err)
	}
	return nil
}
