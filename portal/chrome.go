package portal

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"kycd/branding"
	"kycd/kyc"
	"kycd/locale"
)

// langParam is the query parameter of the language switcher. The page
// passes the language it shows to the endpoints it calls the same way, so
// that their errors are in that language too; no cookie is needed.
const langParam = "lang"

// chrome is what every page shows around its content: the language, who is
// asking (name, logo, colours) and the language switcher.
type chrome struct {
	L        *locale.Catalog
	Org      string // the organization's shown name; "" when the link is unknown
	Brand    *kyc.Branding
	LogoURL  string
	ThemeURL string
	Langs    []langLink
}

// langLink is one entry of the language switcher.
type langLink struct {
	Tag, Name, URL string
	Current        bool
}

// catalog picks the language of a response: the switcher's choice, the
// request's locale, the browser's languages, the organization's default,
// English (locale.Match).
func catalog(r *http.Request, req *kyc.KYCRequest, b *kyc.Branding) *locale.Catalog {
	ch := locale.Choice{Chosen: r.URL.Query().Get(langParam), AcceptLanguage: r.Header.Get("Accept-Language")}
	if req != nil && req.Locale != nil {
		ch.Requested = *req.Locale
	}
	if b != nil {
		ch.OrgDefault = b.DefaultLocale
	}
	return locale.Match(ch)
}

// chromeFor builds the chrome of a page for req (nil when the link is
// unknown). A failure to read the branding is logged and the page shown
// without it: the applicant must still get an answer.
func (p *portal) chromeFor(ctx context.Context, r *http.Request, req *kyc.KYCRequest) chrome {
	var b *kyc.Branding
	if req != nil {
		var err error
		if b, err = p.store.FindBranding(ctx, req.OrganizationID); err != nil {
			p.log.ErrorContext(ctx, "portal branding", "org", req.OrganizationID, "err", err)
			b = nil
		}
	}
	c := chrome{L: catalog(r, req, b), Brand: b}
	if b == nil {
		c.Brand = &kyc.Branding{} // templates read its fields
	} else {
		c.Org = b.Shown()
		if b.Logo != nil {
			c.LogoURL = "/portal/logos/" + b.Logo.SHA256
		}
		if kyc.ValidColor(b.BrandColor) {
			c.ThemeURL = "/portal/theme/" + b.BrandColor[1:] + ".css"
		}
	}
	for _, l := range locale.All() {
		q := url.Values{langParam: {l.Tag()}}
		c.Langs = append(c.Langs, langLink{Tag: l.Tag(), Name: l.Name(), URL: r.URL.Path + "?" + q.Encode(), Current: l == c.L})
	}
	return c
}

// withLang adds the page's language to the URL of an endpoint it calls.
func withLang(path string, c *locale.Catalog) string {
	return path + "?" + url.Values{langParam: {c.Tag()}}.Encode()
}

// handleTheme handles "GET /portal/theme/{color}.css": the CSS custom
// properties of a brand colour's palette, which portal.css paints with. A
// stylesheet of its own, rather than a <style> in the page, keeps the
// policy at style-src 'self'. Any colour may be asked for: the answer
// holds nothing but that colour's palette.
func (p *portal) handleTheme(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	hexColor, ok := strings.CutSuffix(name, ".css")
	pal, valid := branding.NewPalette("#" + hexColor)
	if !ok || !valid {
		http.Error(w, "Not found.", http.StatusNotFound)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=86400")
	fmt.Fprintf(w, ":root{--brand:%s;--on-brand:%s;--brand-hover:%s;--ink:%s;--tint:%s}\n",
		pal.Brand, pal.OnBrand, pal.BrandHover, pal.Ink, pal.Tint)
}

// logoPolicy is the Content-Security-Policy of a logo: nothing may load or
// run, even if someone opens an SVG logo as a page of its own (it was
// sanitised when it was stored; this is the second lock).
const logoPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// handleLogo handles "GET /portal/logos/{sha256}": an organization's
// logo, as stored (re-encoded PNG or sanitised SVG). Its URL is its hash,
// so it may be cached for good.
func (p *portal) handleLogo(w http.ResponseWriter, r *http.Request) {
	sum := r.PathValue("sha256")
	if b, err := hex.DecodeString(sum); err != nil || len(b) != 32 || strings.ToLower(sum) != sum {
		http.Error(w, "Not found.", http.StatusNotFound)
		return
	}
	logo, err := p.store.FindLogo(r.Context(), sum)
	if err != nil {
		if kyc.ErrorCode(err) != kyc.ENotFound {
			p.log.ErrorContext(r.Context(), "portal logo", "err", err)
			http.Error(w, "Something went wrong.", http.StatusInternalServerError)
			return
		}
		http.Error(w, "Not found.", http.StatusNotFound)
		return
	}
	h := w.Header()
	h.Set("Content-Type", logo.ContentType)
	h.Set("Content-Security-Policy", logoPolicy)
	h.Set("Content-Disposition", "inline")
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	if _, err := w.Write(logo.Data); err != nil {
		p.log.DebugContext(r.Context(), "portal write logo", "err", err)
	}
}
