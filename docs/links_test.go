package docs_test

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
)

// The README and the guides link to each other by file and by heading
// anchor, and show screenshots. A heading renamed, a guide moved or a
// picture deleted breaks a link silently on GitHub; this test finds it.

// TestDocLinks checks every relative link and image of README.md and
// docs/*.md in the repository: the file exists, and an #anchor names a
// heading of the Markdown file it points into (as GitHub makes anchors).
func TestDocLinks(t *testing.T) {
	repo := os.DirFS("..")
	files := []string{"README.md"}
	guides, err := fs.Glob(repo, "docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(guides) == 0 {
		t.Fatal("no guides in docs/")
	}
	files = append(files, guides...)
	links := 0
	for _, f := range files {
		problems, n, err := lnkProblems(repo, f)
		if err != nil {
			t.Fatal(err)
		}
		links += n
		for _, p := range problems {
			t.Error(p)
		}
	}
	// A parser that found nothing would pass everything.
	if links < 50 {
		t.Errorf("only %d links found in %d files; the link parser is broken", links, len(files))
	}
}

// TestDocLinkChecker proves the checker fails on each kind of broken link
// (and passes the good ones) on made-up Markdown.
func TestDocLinkChecker(t *testing.T) {
	base := fstest.MapFS{
		"docs/guide.md": {Data: []byte("# The guide\n\n## Set-up: `kycd init` (admins)\n\n## Set-up: `kycd init` (admins)\n\n### Über Straße 2.0\n\n" +
			"```sh\n# not a heading\n```\n")},
		"docs/shot.png": {Data: []byte("\x89PNG")},
		"Dockerfile":    {Data: []byte("FROM scratch")},
	}
	for _, c := range []struct {
		name, md string
		broken   []string // the targets reported, in order
	}{
		{"good links", "[a](docs/guide.md) [b](docs/guide.md#the-guide) [c](docs/guide.md#set-up-kycd-init-admins) " +
			"[d](docs/guide.md#set-up-kycd-init-admins-1) [e](docs/guide.md#über-straße-20) [f](Dockerfile) " +
			"![g](docs/shot.png) <img src=\"docs/shot.png\" alt=\"h\"> [i](https://example.com/x.md#nope) [j](mailto:a@b.c) " +
			"[k](#local) [l](./docs/guide.md)\n\n## Local\n", nil},
		{"missing file", "[a](docs/nope.md)\n", []string{"docs/nope.md"}},
		{"missing anchor", "[a](docs/guide.md#set-up)\n", []string{"docs/guide.md#set-up"}},
		{"a third duplicate that is not there", "[a](docs/guide.md#set-up-kycd-init-admins-2)\n", []string{"docs/guide.md#set-up-kycd-init-admins-2"}},
		{"heading inside a code block is no anchor", "[a](docs/guide.md#not-a-heading)\n", []string{"docs/guide.md#not-a-heading"}},
		{"missing local anchor", "# Top\n\n[a](#bottom)\n", []string{"#bottom"}},
		{"missing image", "![a](docs/gone.png)\n", []string{"docs/gone.png"}},
		{"missing html image", "<img src=\"docs/gone.png\" width=\"260\">\n", []string{"docs/gone.png"}},
		{"anchor into a non-Markdown file", "[a](Dockerfile#top)\n", []string{"Dockerfile#top"}},
		{"links in code are not links", "`[a](docs/nope.md)`\n\n```md\n[b](docs/nope.md)\n```\n", nil},
		{"link with a title", "[a](docs/nope.md \"Title\")\n", []string{"docs/nope.md"}},
		{"two on a line, second broken", "[a](docs/guide.md) and [b](docs/guide.md#nope)\n", []string{"docs/guide.md#nope"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{"README.md": {Data: []byte(c.md)}}
			for k, v := range base {
				fsys[k] = v
			}
			problems, _, err := lnkProblems(fsys, "README.md")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range problems {
				got = append(got, p.target)
			}
			if !slices.Equal(got, c.broken) {
				t.Errorf("broken links %q, want %q", got, c.broken)
			}
		})
	}
	// The same from a guide: links are relative to the guide's folder.
	fsys := fstest.MapFS{"docs/a.md": {Data: []byte("[up](../README.md) [x](guide.md#the-guide) [y](../docs/shot.png) [z](shot.png) [w](README.md)\n")},
		"README.md": {Data: []byte("# R\n")}}
	for k, v := range base {
		fsys[k] = v
	}
	problems, _, err := lnkProblems(fsys, "docs/a.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || problems[0].target != "README.md" {
		t.Errorf("from docs/a.md: %v, want only README.md (docs/README.md) broken", problems)
	}
}

type lnkProblem struct {
	file   string
	line   int
	target string
	why    string
}

func (p lnkProblem) String() string {
	return fmt.Sprintf("%s:%d: link %q: %s", p.file, p.line, p.target, p.why)
}

var (
	// [text](target "title") and ![alt](src); the text may hold code
	// spans and one level of brackets (a badge, an image in a link).
	lnkMarkdownRE = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// <img src="…"> and <a href="…">
	lnkHTMLRE     = regexp.MustCompile(`<(?:img|a)\s[^>]*?(?:src|href)="([^"]+)"`)
	lnkCodeSpanRE = regexp.MustCompile("`[^`]*`")
)

// lnkProblems returns the broken relative links and images of the
// Markdown file name in fsys, and how many links it checked.
func lnkProblems(fsys fs.FS, name string) ([]lnkProblem, int, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, 0, err
	}
	anchorCache := map[string]map[string]bool{}
	anchorsOf := func(file string) (map[string]bool, error) {
		if a, ok := anchorCache[file]; ok {
			return a, nil
		}
		md, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		a := lnkHeadingAnchors(string(md))
		anchorCache[file] = a
		return a, nil
	}
	var problems []lnkProblem
	n := 0
	for i, line := range lnkProseLines(string(b)) {
		if line == "" {
			continue
		}
		line = lnkCodeSpanRE.ReplaceAllString(line, "")
		var targets []string
		for _, m := range lnkMarkdownRE.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		for _, m := range lnkHTMLRE.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "/") {
				continue // not a link into the repository
			}
			n++
			bad := func(why string) {
				problems = append(problems, lnkProblem{file: name, line: i + 1, target: target, why: why})
			}
			file, anchor, _ := strings.Cut(target, "#")
			if file == "" {
				file = name
			} else {
				file = path.Clean(path.Join(path.Dir(name), file))
				if strings.HasPrefix(file, "../") {
					bad("leaves the repository")
					continue
				}
				if _, err := fs.Stat(fsys, file); err != nil {
					bad("no such file")
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(file, ".md") {
				bad("an anchor into a file that is not Markdown")
				continue
			}
			anchors, err := anchorsOf(file)
			if err != nil {
				return nil, 0, err
			}
			if !anchors[anchor] {
				bad("no heading of " + file + " has this anchor")
			}
		}
	}
	return problems, n, nil
}

// lnkProseLines returns the file's lines with those of fenced code blocks
// blanked, so that their text is neither a link nor a heading.
func lnkProseLines(md string) []string {
	lines := strings.Split(md, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		switch {
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
			lines[i] = ""
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			lines[i] = ""
		}
	}
	return lines
}

// lnkHeadingAnchors returns the anchors GitHub gives the ATX headings of md:
// the heading's text lower-cased, every character but letters, digits,
// spaces, hyphens and underscores dropped, spaces turned into hyphens,
// and -1, -2… added to repeats.
func lnkHeadingAnchors(md string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range lnkProseLines(md) {
		h := strings.TrimLeft(l, "#")
		if len(l)-len(h) < 1 || len(l)-len(h) > 6 || !strings.HasPrefix(h, " ") {
			continue
		}
		slug := lnkGitHubSlug(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#")))
		if k := seen[slug]; k > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, k)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

var lnkInlineRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

func lnkGitHubSlug(heading string) string {
	heading = lnkInlineRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}
