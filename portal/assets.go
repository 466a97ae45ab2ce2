package portal

import (
	"embed"
	"net/http"

	"kycd/webasset"
)

//go:embed static
var staticFiles embed.FS

// mustLoadAssets reads and hashes the portal's static files, served under
// /portal/assets/<hash>/<name>.
func mustLoadAssets() *webasset.Set {
	return webasset.MustLoad(staticFiles, "static", "/portal/assets")
}

// handleAsset handles "GET /portal/assets/{hash}/{name}".
func (p *portal) handleAsset(w http.ResponseWriter, r *http.Request) {
	if err := p.assets.Serve(w, r); err != nil {
		p.log.DebugContext(r.Context(), "portal write asset", "name", r.PathValue("name"), "err", err)
	}
}
