package branding

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const (
	svgNS   = "http://www.w3.org/2000/svg"
	xlinkNS = "http://www.w3.org/1999/xlink"
	xmlNS   = "http://www.w3.org/XML/1998/namespace"

	maxSVGElements = 5000
	maxSVGDepth    = 32
	// A <use> (or a url(#…) fill, a gradient's or pattern's href) draws
	// another element again, which may itself draw others: 25 nested
	// levels of two uses in 1.6 KB stopped a browser rendering the portal
	// (issue 23). References may nest maxRefDepth deep, and the document
	// with every reference expanded may hold maxExpanded elements.
	maxRefDepth = 8
	maxExpanded = 20000
)

// svgElements are the SVG elements a logo may use: shapes, text, groups,
// gradients, clipping and masks, and <use> of an element of the same file.
// Everything else goes with its content: script, style (CSS can fetch and
// hide), foreignObject (HTML), image (a fetch or a second, unchecked
// picture), a (a link), animate and set (they can rewrite href), filter
// (heavy to render for little use in a logo), font definitions.
var svgElements = map[string]bool{
	"svg": true, "g": true, "defs": true, "title": true, "desc": true, "symbol": true, "use": true,
	"path": true, "rect": true, "circle": true, "ellipse": true, "line": true, "polyline": true, "polygon": true,
	"text": true, "tspan": true, "textPath": true,
	"linearGradient": true, "radialGradient": true, "stop": true, "clipPath": true, "mask": true, "pattern": true,
}

// svgAttrs are the attributes kept on any allowed element: geometry and
// presentation. Event handlers (on*), href other than to "#id" in this
// file, and anything unknown are dropped.
var svgAttrs = map[string]bool{
	"id": true, "class": true, "version": true, "viewBox": true, "preserveAspectRatio": true, "width": true, "height": true,
	"x": true, "y": true, "x1": true, "y1": true, "x2": true, "y2": true, "cx": true, "cy": true, "r": true, "rx": true, "ry": true,
	"fx": true, "fy": true, "fr": true, "d": true, "points": true, "pathLength": true, "transform": true, "dx": true, "dy": true,
	"rotate": true, "textLength": true, "lengthAdjust": true, "startOffset": true,
	"fill": true, "fill-opacity": true, "fill-rule": true, "stroke": true, "stroke-width": true, "stroke-opacity": true,
	"stroke-linecap": true, "stroke-linejoin": true, "stroke-miterlimit": true, "stroke-dasharray": true, "stroke-dashoffset": true,
	"opacity": true, "color": true, "visibility": true, "display": true, "clip-path": true, "clip-rule": true, "mask": true,
	"offset": true, "stop-color": true, "stop-opacity": true, "gradientUnits": true, "gradientTransform": true, "spreadMethod": true,
	"clipPathUnits": true, "maskUnits": true, "maskContentUnits": true, "patternUnits": true, "patternContentUnits": true,
	"patternTransform": true, "vector-effect": true, "shape-rendering": true, "paint-order": true,
	"font-family": true, "font-size": true, "font-weight": true, "font-style": true, "font-stretch": true, "font-variant": true,
	"text-anchor": true, "dominant-baseline": true, "alignment-baseline": true, "baseline-shift": true, "letter-spacing": true,
	"word-spacing": true, "text-decoration": true, "writing-mode": true, "direction": true, "unicode-bidi": true,
	"style": true, "href": true,
}

// localURL is the one url() a value may hold: a reference to an element
// of this file, as fill="url(#grad)" makes.
var localURL = regexp.MustCompile(`(?i)url\(\s*(['"]?)#[A-Za-z_][\w.\-:]*(['"]?)\s*\)`)

// badValue finds what must never be in a value once local url()s are
// taken out: another url(), a script or data scheme, CSS escapes and
// at-rules, expression() and the markup characters.
var badValue = regexp.MustCompile(`(?i)url\(|javascript:|vbscript:|data:|expression\(|@import|\\|[<>]|behavior\s*:|-moz-binding`)

// SanitizeSVG rebuilds an SVG from the allowed elements and attributes,
// returning the new document, its width and height (from viewBox, else
// width/height, in user units, rounded) and what it dropped. It fails on
// what is not a single SVG document, on a DOCTYPE (entity definitions are
// how XML bombs and file disclosure start), or when the image is too
// complex or has no size.
func SanitizeSVG(data []byte) (out []byte, w, h int, removed []string, err error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.Entity = nil // only the five predefined entities
	var buf bytes.Buffer
	drop := map[string]bool{}
	note := func(s string) {
		if !drop[s] {
			drop[s] = true
			removed = append(removed, s)
		}
	}
	var (
		depth, skip, elements int
		stack                 []string
		nodes                 []*refNode // parallel to stack
		root                  *refNode
		rootSeen, rootClosed  bool
		rootAttrs             map[string]string
	)
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, 0, nil, fmt.Errorf("not well-formed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			return nil, 0, 0, nil, errors.New("an SVG logo must not have a DOCTYPE or entity declarations")
		case xml.ProcInst:
			if t.Target != "xml" {
				note("processing instruction <?" + t.Target + "?>")
			}
		case xml.Comment:
			// Dropped silently: comments carry nothing a logo needs.
		case xml.StartElement:
			depth++
			elements++
			if elements > maxSVGElements || depth > maxSVGDepth {
				return nil, 0, 0, nil, fmt.Errorf("too complex: more than %d elements or %d levels", maxSVGElements, maxSVGDepth)
			}
			if rootClosed {
				return nil, 0, 0, nil, errors.New("more than one root element")
			}
			if skip > 0 {
				skip++
				continue
			}
			name := t.Name.Local
			if !rootSeen {
				if t.Name.Space != svgNS || name != "svg" {
					return nil, 0, 0, nil, errors.New(`the root element must be <svg xmlns="http://www.w3.org/2000/svg">`)
				}
				rootSeen = true
			}
			if t.Name.Space != svgNS || !svgElements[name] {
				note("element <" + qualified(t.Name) + ">")
				skip = 1
				continue
			}
			attrs := cleanAttrs(name, t.Attr, note)
			if depth == 1 {
				rootAttrs = map[string]string{}
				for _, a := range attrs {
					rootAttrs[a[0]] = a[1]
				}
				attrs = slices.DeleteFunc(attrs, func(a [2]string) bool { return a[0] == "xmlns" })
				buf.WriteString(`<svg xmlns="` + svgNS + `"`)
			} else {
				buf.WriteString("<" + name)
			}
			for _, a := range attrs {
				buf.WriteString(" " + a[0] + `="`)
				xml.EscapeText(&buf, []byte(a[1]))
				buf.WriteString(`"`)
			}
			buf.WriteString(">")
			stack = append(stack, name)
			n := newRefNode(attrs)
			if len(nodes) > 0 {
				parent := nodes[len(nodes)-1]
				parent.children = append(parent.children, n)
			} else {
				root = n
			}
			nodes = append(nodes, n)
		case xml.EndElement:
			depth--
			if skip > 0 {
				skip--
				continue
			}
			buf.WriteString("</" + stack[len(stack)-1] + ">")
			stack, nodes = stack[:len(stack)-1], nodes[:len(nodes)-1]
			if depth == 0 {
				rootClosed = true
			}
		case xml.CharData:
			if skip > 0 || len(stack) == 0 {
				continue
			}
			switch stack[len(stack)-1] {
			case "text", "tspan", "textPath", "title", "desc":
				xml.EscapeText(&buf, t)
			default:
				// Whitespace between elements; any other text in a
				// drawing element is never rendered.
				if len(bytes.TrimSpace(t)) == 0 {
					buf.Write(t)
				}
			}
		}
	}
	if !rootClosed {
		return nil, 0, 0, nil, errors.New("no <svg> element")
	}
	if err := checkReferences(root); err != nil {
		return nil, 0, 0, nil, err
	}
	w, h, ok := svgSize(rootAttrs)
	if !ok {
		return nil, 0, 0, nil, errors.New(`the <svg> element needs a viewBox (or width and height) of positive numbers`)
	}
	return buf.Bytes(), w, h, removed, nil
}

// cleanAttrs returns the allowed attributes of an element as name, value
// pairs in their given order, noting what it drops.
func cleanAttrs(elem string, attrs []xml.Attr, note func(string)) [][2]string {
	var out [][2]string
	seen := map[string]bool{}
	for _, a := range attrs {
		name := a.Name.Local
		switch {
		case a.Name.Space == "xmlns" || (a.Name.Space == "" && name == "xmlns"):
			continue // namespace declarations: the output declares its own
		case a.Name.Space == xlinkNS && name == "href":
			// xlink:href becomes SVG 2's plain href.
		case a.Name.Space == xmlNS:
			if name != "space" && name != "lang" {
				note("attribute xml:" + name + " on <" + elem + ">") // xml:base would move every reference
			}
			continue
		case a.Name.Space != "":
			note("attribute " + qualified(a.Name) + " on <" + elem + ">")
			continue
		case strings.HasPrefix(strings.ToLower(name), "on"):
			note("event handler " + name + " on <" + elem + ">")
			continue
		case !svgAttrs[name]:
			note("attribute " + name + " on <" + elem + ">")
			continue
		}
		v := a.Value
		switch {
		case name == "href":
			// Only a reference to an element of this file, and only where
			// one is meant: <use>, gradients and patterns inheriting, text
			// on a path.
			if !strings.HasPrefix(v, "#") || strings.ContainsAny(v, "()<>\"' \\") ||
				!slices.Contains([]string{"use", "linearGradient", "radialGradient", "pattern", "textPath"}, elem) {
				note("reference " + strconv.Quote(truncate(v)) + " on <" + elem + ">")
				continue
			}
		case name == "style":
			var ok bool
			if v, ok = cleanStyle(v); !ok {
				note("style on <" + elem + ">")
			}
			if v == "" {
				continue
			}
		default:
			if badValue.MatchString(localURL.ReplaceAllString(v, "")) {
				note("value of " + name + " on <" + elem + ">")
				continue
			}
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, [2]string{name, v})
	}
	return out
}

// cleanStyle keeps the declarations of a style attribute whose property is
// an allowed presentation attribute and whose value is safe; ok is false
// when something was dropped.
func cleanStyle(s string) (string, bool) {
	ok := true
	var kept []string
	for decl := range strings.SplitSeq(s, ";") {
		if strings.TrimSpace(decl) == "" {
			continue
		}
		prop, val, found := strings.Cut(decl, ":")
		prop, val = strings.ToLower(strings.TrimSpace(prop)), strings.TrimSpace(val)
		if !found || !svgAttrs[prop] || prop == "style" || prop == "href" || val == "" ||
			badValue.MatchString(localURL.ReplaceAllString(val, "")) || strings.ContainsAny(val, "{}") {
			ok = false
			continue
		}
		kept = append(kept, prop+":"+val)
	}
	return strings.Join(kept, ";"), ok
}

// svgSize reads the image's size from viewBox, else width and height.
func svgSize(attrs map[string]string) (int, int, bool) {
	if vb := strings.Fields(strings.ReplaceAll(attrs["viewBox"], ",", " ")); len(vb) == 4 {
		w, errW := strconv.ParseFloat(vb[2], 64)
		h, errH := strconv.ParseFloat(vb[3], 64)
		if errW == nil && errH == nil && w > 0 && h > 0 && w < 1e6 && h < 1e6 {
			return max(1, int(math.Round(w))), max(1, int(math.Round(h))), true
		}
	}
	w, okW := length(attrs["width"])
	h, okH := length(attrs["height"])
	if okW && okH {
		return w, h, true
	}
	return 0, 0, false
}

func length(s string) (int, bool) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "px"), 64)
	if err != nil || f <= 0 || f >= 1e6 {
		return 0, false
	}
	return max(1, int(math.Round(f))), true
}

func qualified(n xml.Name) string {
	if n.Space == "" || n.Space == svgNS {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
