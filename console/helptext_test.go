package console

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// developerPointer matches what speaks to the API's implementers instead
// of the console's users: a spec section ("spec §6", "§6.4"), the README,
// or "the spec".
var developerPointer = regexp.MustCompile(`(?i)§|\bREADME\b|\bthe spec\b|\bspec\s+(section|§|\d)`)

// TestHelpTextsSpeakToUsers fails when a console page, its script or a
// message the console's Go code shows (string literals, not comments)
// points reviewers and admins to a spec section or the README: they read
// the console, not the source.
func TestHelpTextsSpeakToUsers(t *testing.T) {
	var files []string
	for _, g := range []string{"templates/*.html", "static/*.js", "static/*.css"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found only %d template and static files: the test is not reading the console's pages", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if developerPointer.MatchString(line) {
				t.Errorf("%s:%d points users to the spec or README: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
	goFiles, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	literals := 0
	for _, f := range goFiles {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0) // comments are not shown to users
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			literals++
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				s = lit.Value
			}
			if developerPointer.MatchString(s) {
				t.Errorf("%s: a message points users to the spec or README: %q", fset.Position(lit.Pos()), s)
			}
			return true
		})
	}
	if literals < 100 {
		t.Fatalf("read only %d string literals: the test is not reading the console's code", literals)
	}
}

// TestDeveloperPointerPattern keeps the pattern able to fail.
func TestDeveloperPointerPattern(t *testing.T) {
	for s, want := range map[string]bool{
		"Signed events (spec §6) go to these addresses.": true,
		"(README: The decision engine)":                  true,
		"as the spec says":                               true,
		"spec 6.4":                                       true,
		"Each endpoint has its own signing secret.":      false,
		"inspect the specimen":                           false,
		"a special case":                                 false,
	} {
		if got := developerPointer.MatchString(s); got != want {
			t.Errorf("%q: matched %v, want %v", s, got, want)
		}
	}
}
