package server_test

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"kycd/kyc"
	"kycd/server"
)

// kycStringConsts reads package kyc's source and returns, for each named
// string type, the values of its typed constants: the enum-like strings the
// server can emit. Reading the source (not a hand-kept list) is the point:
// a constant added to kyc fails TestEnumsInDescription until it is placed.
func kycStringConsts(t *testing.T) map[string][]string {
	t.Helper()
	typed, _ := stringConsts(t, "../kyc")
	return typed
}

// stringConsts reads a package's source: the values of its typed string
// constants by type, and its untyped string constants by name.
func stringConsts(t *testing.T, dir string) (map[string][]string, map[string]string) {
	t.Helper()
	fset := gotoken.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]bool{}
	out := map[string][]string{}
	untyped := map[string]string{}
	var specs []*ast.ValueSpec
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok {
					continue
				}
				for _, s := range g.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if id, ok := s.Type.(*ast.Ident); ok && id.Name == "string" && s.Name.IsExported() {
							types[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						if g.Tok == gotoken.CONST {
							specs = append(specs, s)
						}
					}
				}
			}
		}
	}
	for _, s := range specs {
		id, ok := s.Type.(*ast.Ident)
		if s.Type == nil && len(s.Values) == len(s.Names) {
			for i, v := range s.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == gotoken.STRING {
					if val, err := strconv.Unquote(lit.Value); err == nil {
						untyped[s.Names[i].Name] = val
					}
				}
			}
			continue
		}
		if !ok || !types[id.Name] {
			continue
		}
		for _, v := range s.Values {
			lit, ok := v.(*ast.BasicLit)
			if !ok || lit.Kind != gotoken.STRING {
				t.Fatalf("kyc: a %s constant that is not a string literal; extend kycStringConsts", id.Name)
			}
			val, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			out[id.Name] = append(out[id.Name], val)
		}
	}
	for typ := range types {
		if _, ok := out[typ]; !ok {
			out[typ] = nil
		}
	}
	return out, untyped
}

// untypedEnums are groups of untyped string constants, by package and
// name prefix, that the server writes as enum values, and where.
var untypedEnums = []struct {
	dir, prefix string
	except      []string // constant names of the group that are not such values
	sites       []string
}{
	{dir: "../kyc", prefix: "Trigger", sites: []string{"AmlScreening trigger"}},
	{dir: "../kyc", prefix: "Kind", sites: []string{"AmlListResult checkType", "AmlEvent results [] checkType"}},
	{dir: "../decision", prefix: "Code", sites: []string{"ReasonCode"}},
	{dir: "../decision", prefix: "Sig", sites: []string{"Signal name"}},
}

// TestUntypedEnumsInDescription is TestEnumsInDescription for enum values
// kept as untyped constants (AML triggers and kinds, the decision engine's
// reason codes and signal names).
func TestUntypedEnumsInDescription(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(server.OpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range untypedEnums {
		_, untyped := stringConsts(t, g.dir)
		n := 0
		for name, v := range untyped {
			if !strings.HasPrefix(name, g.prefix) || len(name) == len(g.prefix) || slices.Contains(g.except, name) {
				continue
			}
			if c := name[len(g.prefix)]; c < 'A' || c > 'Z' {
				continue // e.g. "Codec": not of the group
			}
			n++
			for _, site := range g.sites {
				sc := schemaAt(t, doc, site)
				if sc != nil && !slices.Contains(sc.Enum, any(v)) {
					t.Errorf("%s.%s %q is emitted at %s but is not in its enum", g.dir, name, v, site)
				}
			}
		}
		if n == 0 {
			t.Errorf("no %s* constants read in %s", g.prefix, g.dir)
		}
	}
}

// enumSite is one place of the description where the server writes a
// value of a kyc type; except lists the values it never writes there,
// each for a reason given next to it.
type enumSite struct {
	path   string // schema name, then property names; "[]" steps into items
	except []string
	prefix string // only the values with this prefix are written here
}

// emittedEnums says where each kyc string type reaches a response or a
// webhook body. Types the server never writes out are listed with nil.
var emittedEnums = map[string][]enumSite{
	"AMLStatus":         {{path: "AmlStatus"}},
	"ListStatus":        {{path: "AmlListResult status"}, {path: "AmlEvent results [] status"}},
	"RiskLevel":         {{path: "RiskLevel"}},
	"MatchDecision":     {{path: "AmlMatchReview decision"}, {path: "AmlEntityChange previousDecision"}},
	"AMLReviewStatus":   {{path: "AmlReviewStatus"}},
	"AMLBatchStatus":    {{path: "AmlBatch status"}},
	"AMLBatchRowStatus": {{path: "AmlBatchRow status"}},
	"AMLCaseStatus":     {{path: "AmlCaseStatus"}, {path: "AmlCaseEvent status"}},
	"AMLCaseOutcome":    {{path: "AmlCaseOutcome"}},
	"AMLCaseEntryKind":  {{path: "AmlCaseEntryKind"}},
	"ApplicantStatus":   {{path: "Applicant status"}},
	"EventType": {
		{path: "EventType"},
		{path: "KycEventType", prefix: "svc.kyc."},
		{path: "AmlEventType", prefix: "svc.aml_check."},
		{path: "AmlCaseEvent eventType", prefix: "svc.aml_case."},
	},
	"Environment": {{path: "Environment"}},
	"KYCStatus":   {{path: "KycStatus"}},
	"KYCDecision": {{path: "KycDecision"}},
	"ActorType": {
		// The timeline and KYC events name how a request moved: a
		// back-office user decides as a reviewer (console/case.go), and
		// operators and users act on requests only through audited
		// claims, never as the timeline's actor.
		{path: "KycTimelineEntry actorType", except: []string{"user", "operator"}},
		{path: "KycEvent actorType", except: []string{"user", "operator"}},
		// Matches are decided through the API or the console.
		{path: "AmlMatchReview actorType", except: []string{"applicant", "system", "reviewer", "operator"}},
		// The first of a four-eyes decision: an API key or a console user.
		{path: "KycRequest pendingReview actorType", except: []string{"applicant", "system", "reviewer", "operator"}},
	},
	"WorkflowType": {{path: "KycRequestCreate workflowType"}, {path: "KycRequest workflowType"}},
	// report.json says which rule printed it.
	"PersonalData": {{path: "KycReport personalData"}},
	// A resubmission's step (the request, its webhook and report.json)
	// and its state (issue 27).
	"ResubmissionStep":  {{path: "ResubmissionStep"}, {path: "KycEvent resubmission step"}},
	"ResubmissionState": {{path: "KycResubmission status"}},
	// The erasure receipt and its event say under which rule.
	"ErasureRule": {{path: "ErasureReceipt rule"}, {path: "ApplicantErasedEvent rule"}},
	// Who wrote a comment on a case.
	"CommentAuthorType": {{path: "CommentAuthorType"}, {path: "Comment authorType"}},
	// Tags and comments name their subject inside kycd only (the API's
	// paths say it).
	"SubjectType": nil,
	// Written out as UsageCounts' property names, checked below.
	"UsageMetric": nil,
	// Not written by the API: tiers, the transition table's actions and
	// back-office roles stay inside kycd (console pages, the CLI).
	"Tier": nil, "KYCAction": nil, "Role": nil,
}

// TestEnumsInDescription holds every value of every enum-like kyc type to
// the enums of the description where the server writes it (issue 23 item
// 21: not_screened was sent in AML webhook bodies but missing from
// AmlEvent's enum).
func TestEnumsInDescription(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(server.OpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	consts := kycStringConsts(t)
	for typ, values := range consts {
		sites, ok := emittedEnums[typ]
		if !ok {
			t.Errorf("kyc.%s %v: say in emittedEnums where the server writes it (or that it does not)", typ, values)
			continue
		}
		for _, site := range sites {
			s := schemaAt(t, doc, site.path)
			if s == nil {
				continue
			}
			var enum []string
			for _, e := range s.Enum {
				if v, ok := e.(string); ok {
					enum = append(enum, v)
				}
			}
			for _, v := range values {
				if !strings.HasPrefix(v, site.prefix) || slices.Contains(site.except, v) {
					continue
				}
				if !slices.Contains(enum, v) {
					t.Errorf("kyc.%s %q is emitted at %s but its enum is %v", typ, v, site.path, enum)
				}
			}
		}
	}
	// Usage counts are keyed by metric: every metric is a property.
	props := schemaAt(t, doc, "UsageCounts").Properties
	for _, m := range kyc.UsageMetrics {
		camel := camelCase(string(m))
		if _, ok := props[camel]; !ok {
			t.Errorf("usage metric %s has no UsageCounts property %s", m, camel)
		}
	}
}

// schemaAt walks "Schema prop prop [] prop" through the description,
// following references and the branches of anyOf/oneOf (the non-null one).
func schemaAt(t *testing.T, doc *openapi3.T, path string) *openapi3.Schema {
	t.Helper()
	parts := strings.Fields(path)
	ref := doc.Components.Schemas[parts[0]]
	if ref == nil {
		t.Errorf("%s: no schema %s", path, parts[0])
		return nil
	}
	s := ref.Value
	for _, p := range parts[1:] {
		s = concrete(s)
		if p == "[]" {
			if s.Items == nil {
				t.Errorf("%s: no items", path)
				return nil
			}
			s = s.Items.Value
			continue
		}
		pr := s.Properties[p]
		if pr == nil {
			t.Errorf("%s: no property %s", path, p)
			return nil
		}
		s = pr.Value
	}
	return concrete(s)
}

// concrete picks the branch of an anyOf/oneOf that is not null.
func concrete(s *openapi3.Schema) *openapi3.Schema {
	for _, alts := range []openapi3.SchemaRefs{s.AnyOf, s.OneOf} {
		for _, a := range alts {
			if a.Value != nil && !a.Value.Type.Is("null") {
				return a.Value
			}
		}
	}
	return s
}

func camelCase(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// TestEnumsInDescriptionSeesEveryType keeps the reader honest: it must
// find the types the server is known to emit.
func TestEnumsInDescriptionSeesEveryType(t *testing.T) {
	consts := kycStringConsts(t)
	var names []string
	for n := range consts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, want := range []string{"ListStatus", "ActorType", "EventType", "KYCStatus"} {
		if len(consts[want]) == 0 {
			t.Errorf("no constants read for kyc.%s (read: %v)", want, names)
		}
	}
}
