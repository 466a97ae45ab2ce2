package branding_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"kycd/branding"
	"kycd/kyc"
)

const goodSVG = `<?xml version="1.0" encoding="UTF-8"?>
<!-- Acme logo -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 120 40" width="120" height="40">
  <title>Acme &amp; Co</title>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#0b3d91"/><stop offset="1" stop-color="#1f6feb"/></linearGradient></defs>
  <rect width="120" height="40" rx="6" fill="url(#g)"/>
  <path id="p" d="M10 30 L20 10 L30 30 Z" style="fill:#fff;stroke:none"/>
  <use xlink:href="#p" x="30"/>
  <text x="70" y="26" font-family="sans-serif" font-size="14" fill="#fff">Acme</text>
</svg>`

func TestSanitizeKeepsALogo(t *testing.T) {
	out, w, h, removed, err := branding.SanitizeSVG([]byte(goodSVG))
	if err != nil {
		t.Fatal(err)
	}
	if w != 120 || h != 40 || len(removed) != 0 {
		t.Fatalf("size %dx%d removed %v", w, h, removed)
	}
	for _, want := range []string{`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40"`, `fill="url(#g)"`,
		`<use href="#p" x="30">`, `style="fill:#fff;stroke:none"`, `>Acme</text>`, `<title>Acme &amp; Co</title>`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("sanitised logo lacks %s:\n%s", want, out)
		}
	}
	again, _, _, removed, err := branding.SanitizeSVG(out)
	if err != nil || !bytes.Equal(again, out) || len(removed) != 0 {
		t.Errorf("sanitising twice changed it (%v, removed %v):\n%s\n%s", err, removed, out, again)
	}
}

// TestSanitizeHostile feeds the SVG tricks that run script, fetch from
// elsewhere or read files, and checks none survives.
func TestSanitizeHostile(t *testing.T) {
	wrap := func(body string) string {
		return `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">` + body + `</svg>`
	}
	for _, tt := range []struct {
		name, svg string
		mustNot   []string
	}{
		{"script", wrap(`<script>alert(1)</script><rect width="1" height="1"/>`), []string{"script", "alert"}},
		{"script with CDATA", wrap(`<script><![CDATA[alert(1)]]></script>`), []string{"script", "alert"}},
		{"onload on root", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1" onload="alert(1)"/>`, []string{"onload", "alert"}},
		{"event handler, odd case", wrap(`<rect width="1" height="1" ONCLICK="alert(1)" onmouseover="x()"/>`), []string{"ONCLICK", "onmouseover", "alert"}},
		{"foreignObject", wrap(`<foreignObject width="10" height="10"><body xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="alert(1)"/></body></foreignObject>`),
			[]string{"foreignObject", "onerror", "img", "body"}},
		{"external image", wrap(`<image href="https://evil.example/t.png" width="1" height="1"/>`), []string{"image", "evil"}},
		{"data image", wrap(`<image xlink:href="data:image/svg+xml;base64,PHN2Zz4=" width="1" height="1"/>`), []string{"image", "data:"}},
		{"external use", wrap(`<use href="https://evil.example/sprite.svg#a"/>`), []string{"evil"}},
		{"use of a file", wrap(`<use xlink:href="/etc/passwd#x"/>`), []string{"passwd"}},
		{"javascript link", wrap(`<a xlink:href="javascript:alert(1)"><rect width="1" height="1"/></a>`), []string{"javascript", "<a"}},
		{"javascript href on use", wrap(`<use href="javascript:alert(1)"/>`), []string{"javascript"}},
		{"animate rewriting href", wrap(`<a><animate attributeName="href" values="javascript:alert(1)"/></a>`), []string{"animate", "javascript"}},
		{"set", wrap(`<set attributeName="onmouseover" to="alert(1)"/>`), []string{"<set", "alert"}},
		{"style element", wrap(`<style>@import url(https://evil.example/x.css); rect{fill:url(https://evil.example/p)}</style>`),
			[]string{"style", "evil", "@import"}},
		{"style attribute fetch", wrap(`<rect width="1" height="1" style="fill:url(https://evil.example/x);stroke:red"/>`), []string{"evil"}},
		{"style escapes", wrap(`<rect width="1" height="1" style="fill:\75 rl(https://evil.example)"/>`), []string{"evil", `\75`}},
		{"fill with remote url", wrap(`<rect width="1" height="1" fill="url(https://evil.example/#g)"/>`), []string{"evil"}},
		{"html namespace script", wrap(`<html:script xmlns:html="http://www.w3.org/1999/xhtml">alert(1)</html:script>`), []string{"script", "alert"}},
		{"iframe", wrap(`<iframe src="https://evil.example"/>`), []string{"iframe", "evil"}},
		{"processing instruction stylesheet", `<?xml-stylesheet href="https://evil.example/x.css"?>` + wrap(`<rect width="1" height="1"/>`), []string{"evil", "stylesheet"}},
		{"filter", wrap(`<filter id="f"><feImage href="https://evil.example/x"/></filter>`), []string{"evil", "feImage"}},
		{"xml:base", wrap(`<g xml:base="https://evil.example/"><use href="#x"/></g>`), []string{"evil"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, _, removed, err := branding.SanitizeSVG([]byte(tt.svg))
			if err != nil {
				t.Fatalf("refused (%v); a hostile part should be dropped, the rest kept", err)
			}
			if len(removed) == 0 {
				t.Errorf("nothing reported removed")
			}
			for _, bad := range tt.mustNot {
				if strings.Contains(strings.ToLower(string(out)), strings.ToLower(bad)) {
					t.Errorf("output still has %q:\n%s", bad, out)
				}
			}
			checkClean(t, out)
		})
	}
}

func TestSanitizeRefuses(t *testing.T) {
	for _, tt := range []struct{ name, svg, want string }{
		{"billion laughs", `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><text>&lol2;</text></svg>`, "DOCTYPE"},
		{"external entity", `<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><text>&xxe;</text></svg>`, "DOCTYPE"},
		{"undeclared entity", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><text>&nbsp;</text></svg>`, "well-formed"},
		{"no namespace", `<svg viewBox="0 0 1 1"></svg>`, "root element"},
		{"html", `<html><body>hi</body></html>`, "root element"},
		{"jpeg bytes", "\xff\xd8\xff\xe0garbage", "well-formed"},
		{"not closed", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><g>`, "well-formed"},
		{"two roots", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"></svg><svg xmlns="http://www.w3.org/2000/svg"></svg>`, "root"},
		{"no size", `<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>`, "viewBox"},
		{"deep", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1">` + strings.Repeat("<g>", 40) + strings.Repeat("</g>", 40) + `</svg>`, "complex"},
		{"many", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1">` + strings.Repeat(`<rect/>`, 6000) + `</svg>`, "complex"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, _, err := branding.SanitizeSVG([]byte(tt.svg))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err=%v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// checkClean re-parses a sanitised SVG and fails on any element or
// attribute outside the whitelist's spirit: script, handlers, foreign
// namespaces, references leaving the file.
func checkClean(t testing.TB, out []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(out))
	d.Strict = true
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("sanitised output does not parse: %v\n%s", err, out)
		}
		switch v := tok.(type) {
		case xml.Directive, xml.ProcInst:
			t.Fatalf("sanitised output has %T", v)
		case xml.StartElement:
			if v.Name.Space != "http://www.w3.org/2000/svg" {
				t.Fatalf("element %v outside the SVG namespace", v.Name)
			}
			switch v.Name.Local {
			case "script", "style", "foreignObject", "image", "a", "animate", "set", "iframe", "feImage":
				t.Fatalf("element %s survived", v.Name.Local)
			}
			for _, a := range v.Attr {
				l := strings.ToLower(a.Value)
				if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") || (a.Name.Local == "href" && !strings.HasPrefix(a.Value, "#")) ||
					strings.Contains(l, "javascript:") || strings.Contains(strings.ReplaceAll(l, "url(#", ""), "url(") {
					t.Fatalf("attribute %s=%q survived", a.Name.Local, a.Value)
				}
			}
		}
	}
}

// FuzzSanitizeSVG: whatever goes in, what comes out parses, is clean and
// is a fixed point.
func FuzzSanitizeSVG(f *testing.F) {
	f.Add([]byte(goodSVG))
	f.Add([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><script>x</script><rect onclick="x" style="fill:url(http://e)"/></svg>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, _, _, _, err := branding.SanitizeSVG(b)
		if err != nil {
			return
		}
		checkClean(t, out)
		again, _, _, _, err := branding.SanitizeSVG(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not a fixed point (%v):\n%s\n%s", err, out, again)
		}
	})
}

func pngBytes(t *testing.T, w, h int, extra []byte) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return append(buf.Bytes(), extra...)
}

func TestProcessLogoPNG(t *testing.T) {
	// A polyglot: a valid PNG with an HTML payload after IEND.
	src := pngBytes(t, 64, 32, []byte("<script>alert(1)</script>"))
	logo, removed, err := branding.ProcessLogo(src)
	if err != nil {
		t.Fatal(err)
	}
	if logo.ContentType != "image/png" || logo.Width != 64 || logo.Height != 32 || removed != nil || len(logo.SHA256) != 64 {
		t.Fatalf("logo %+v removed %v", logo, removed)
	}
	if bytes.Contains(logo.Data, []byte("script")) {
		t.Fatal("trailing data survived the re-encoding")
	}
	if _, err := png.Decode(bytes.NewReader(logo.Data)); err != nil {
		t.Fatal(err)
	}
}

func TestProcessLogoRefuses(t *testing.T) {
	var le *branding.LogoError
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"too many bytes", append(pngBytes(t, 20, 20, nil), make([]byte, kyc.MaxLogoBytes)...), "at most"},
		{"too small", pngBytes(t, 8, 8, nil), "refused"},
		{"too wide", pngBytes(t, 2100, 16, nil), "at most 2048"},
		{"jpeg", []byte("\xff\xd8\xff\xe0\x00\x10JFIF"), "PNG or an SVG"},
		{"gif", []byte("GIF89a...."), "PNG or an SVG"},
		{"truncated png", func() []byte { b := pngBytes(t, 64, 64, nil); return b[:len(b)/2] }(), "refused"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := branding.ProcessLogo(tt.data)
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err=%v, want a LogoError mentioning %q", err, tt.want)
			}
		})
	}
	logo, removed, err := branding.ProcessLogo([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 5" onload="x()"><rect width="10" height="5"/></svg>`))
	if err != nil || logo.ContentType != "image/svg+xml" || logo.Width != 10 || logo.Height != 5 || len(removed) != 1 {
		t.Fatalf("svg logo %+v %v %v", logo, removed, err)
	}
}

// TestPaletteContrast: for any colour, text on the brand colour and the
// ink on white and on the tint stay readable.
func TestPaletteContrast(t *testing.T) {
	colors := []string{"#000000", "#ffffff", "#777777", "#767676", "#ffff00", "#00ff00", "#0b3d91", "#e30613", "#f0a30a", "#7fffd4"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		colors = append(colors, fmt.Sprintf("#%06x", r.IntN(1<<24)))
	}
	for _, c := range colors {
		p, ok := branding.NewPalette(c)
		if !ok {
			t.Fatalf("%s refused", c)
		}
		for _, pair := range [][2]string{{p.OnBrand, p.Brand}, {p.OnBrand, p.BrandHover}, {p.Ink, "#ffffff"}, {p.Ink, p.Tint}} {
			if got := branding.ContrastHex(pair[0], pair[1]); got < 4.5 {
				t.Errorf("%s: %s on %s has contrast %.2f, want ≥ 4.5 (%+v)", c, pair[0], pair[1], got, p)
			}
		}
	}
	if _, ok := branding.NewPalette("red"); ok {
		t.Error("a colour name was accepted")
	}
}
