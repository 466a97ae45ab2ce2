package screening

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"kycd/kyc"
)

// DefaultThreshold is the match score from which a listed entity is
// reported, unless the organization sets its own. Chosen with
// bench/screening-eval (see docs/screening.md for the curve).
const DefaultThreshold = 0.82

// MaxMatches bounds the match records kept per list kind; the count says
// when more were cut.
const MaxMatches = 50

// List is one loaded list version, ready to screen against.
type List struct {
	Version kyc.ListVersionRef
	Kind    Kind
	Index   *Index
}

// Screener screens people against the loaded lists. Lists are replaced as
// a whole set (Swap), so a screening sees one consistent set of versions.
type Screener struct {
	live    atomic.Pointer[listSet]
	sandbox []*List
}

type listSet struct {
	lists []*List
	stamp string
}

// NewScreener returns a screener with no lists loaded (every live
// screening fails closed until Swap) and the embedded sandbox test list.
func NewScreener() (*Screener, error) {
	sb, err := sandboxLists()
	if err != nil {
		return nil, err
	}
	s := &Screener{sandbox: sb}
	s.live.Store(&listSet{})
	return s, nil
}

// Swap replaces the loaded lists. stamp identifies the set (the loader
// compares it to see whether the database has changed).
func (s *Screener) Swap(lists []*List, stamp string) {
	s.live.Store(&listSet{lists: lists, stamp: stamp})
}

// Stamp identifies the loaded set.
func (s *Screener) Stamp() string { return s.live.Load().stamp }

// Lists returns the loaded live lists.
func (s *Screener) Lists() []*List { return s.live.Load().lists }

// MissingKinds returns the kinds no live list covers; live screening of
// those kinds fails closed.
func (s *Screener) MissingKinds() []Kind {
	var out []Kind
	set := s.live.Load()
	for _, k := range Kinds {
		found := false
		for _, l := range set.lists {
			if l.Kind == k {
				found = true
				break
			}
		}
		if !found {
			out = append(out, k)
		}
	}
	return out
}

// Screen screens q against every kind and returns one result per kind, in
// the order of Kinds. Sandbox screens the loaded lists plus the embedded
// test list, so integrators can trigger every outcome; live screens the
// loaded lists only, and a kind without a list is an error result, never
// a silent clear.
func (s *Screener) Screen(env kyc.Environment, q Query, threshold float64) []kyc.ListResult {
	return s.ScreenKinds(env, q, threshold, nil)
}

// ScreenKinds is Screen for the kinds in scope only (nil: every kind).
// A kind out of scope is reported not_screened, with no lists and no
// matches: it is neither a hit nor an error, so it never fails a check,
// while fail-closed still applies to every kind in scope.
func (s *Screener) ScreenKinds(env kyc.Environment, q Query, threshold float64, scope []Kind) []kyc.ListResult {
	lists := s.live.Load().lists
	if env == kyc.Sandbox {
		lists = append(append([]*List(nil), lists...), s.sandbox...)
	}
	out := make([]kyc.ListResult, 0, len(Kinds))
	for _, k := range Kinds {
		if scope != nil && !slices.Contains(scope, k) {
			out = append(out, kyc.ListResult{CheckType: string(k), Provider: "none", Status: kyc.ListNotScreened, RiskLevel: nil,
				Matches: []kyc.MatchRecord{}, Lists: []kyc.ListVersionRef{}})
			continue
		}
		out = append(out, screenKind(k, lists, q, threshold, env == kyc.Sandbox))
	}
	return out
}

// LoadedKinds returns the kinds at least one live list covers, in Kinds
// order.
func (s *Screener) LoadedKinds() []Kind {
	missing := s.MissingKinds()
	var out []Kind
	for _, k := range Kinds {
		if !slices.Contains(missing, k) {
			out = append(out, k)
		}
	}
	return out
}

func screenKind(k Kind, lists []*List, q Query, threshold float64, sandbox bool) kyc.ListResult {
	r := kyc.ListResult{CheckType: string(k), Status: kyc.ListClear, RiskLevel: kyc.Risk(kyc.RiskLow),
		Matches: []kyc.MatchRecord{}, Lists: []kyc.ListVersionRef{}}
	var providers []string
	for _, l := range lists {
		if l.Kind != k {
			continue
		}
		r.Lists = append(r.Lists, l.Version)
		// Two lists of one provider (OFAC's SDN and consolidated lists)
		// name it once.
		if !slices.Contains(providers, l.Version.Provider) {
			providers = append(providers, l.Version.Provider)
		}
		for _, m := range l.Index.Search(q, threshold, MaxMatches) {
			r.Matches = append(r.Matches, matchRecord(l, &m))
		}
	}
	r.Provider = strings.Join(providers, ", ")
	switch {
	case sandbox && k == Sanctions && isSandboxFailure(q.Name):
		msg := "sandbox: simulated provider failure (the name " + SandboxFailureName + ")"
		r.Status, r.Error, r.Matches, r.RiskLevel = kyc.ListError, &msg, []kyc.MatchRecord{}, nil
		return r
	case len(r.Lists) == 0:
		msg := fmt.Sprintf("no %s list is loaded; import one with kycd lists import", k)
		r.Status, r.Error, r.Provider, r.RiskLevel = kyc.ListError, &msg, "none", nil
		return r
	}
	sort.SliceStable(r.Matches, func(i, j int) bool { return r.Matches[i].Score > r.Matches[j].Score })
	if len(r.Matches) > MaxMatches {
		r.Matches = r.Matches[:MaxMatches]
	}
	r.MatchCount = len(r.Matches)
	if r.MatchCount > 0 {
		r.Status, r.RiskLevel = kyc.ListHit, kyc.Risk(kyc.RiskMedium)
		if k == Sanctions || r.Matches[0].Score >= kyc.HighRiskScore {
			r.RiskLevel = kyc.Risk(kyc.RiskHigh)
		}
	}
	return r
}

func matchRecord(l *List, m *Match) kyc.MatchRecord {
	e := m.Entity
	rec := kyc.MatchRecord{
		EntityID: e.ID, ListVersionID: l.Version.ID, Source: l.Version.Source, Provider: l.Version.Provider,
		Schema: string(e.Schema), Score: m.Score, MatchedName: m.MatchedName.Full, MatchedNameType: string(m.MatchedName.Type),
		Names: make([]string, 0, len(e.Names)), DatesOfBirth: nonNil(e.DOBs), Countries: nonNil(e.Countries),
		Programs: nonNil(e.Programs), Features: featureMap(&m.Features),
	}
	for _, n := range e.Names {
		rec.Names = append(rec.Names, n.Full)
	}
	if e.Reference != "" {
		rec.Reference = &e.Reference
	}
	if e.Reason != "" {
		rec.Reason = &e.Reason
	}
	return rec
}

func featureMap(f *Features) map[string]any {
	tokens := make([]map[string]any, 0, len(f.Tokens))
	for _, t := range f.Tokens {
		tokens = append(tokens, map[string]any{"query": t.Query, "listed": t.Listed, "similarity": t.Similarity, "weak": t.Weak})
	}
	return map[string]any{
		"nameScore": f.NameScore, "queryCoverage": f.QueryCoverage, "nameCoverage": f.NameCoverage, "conflict": f.Conflict, "tokens": tokens,
		"dob": f.DOB, "dobFactor": f.DOBFactor, "country": f.Country, "countryFactor": f.CountryFactor,
		"mixedScript": f.MixedScript, "weakEvidence": f.WeakEvidence,
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
