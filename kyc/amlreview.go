package kyc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// MatchDecision is a person's verdict on one potential match of an AML
// check.
type MatchDecision string

// Match decisions: the listed entity is not the screened person, or it is.
const (
	MatchFalsePositive MatchDecision = "false_positive"
	MatchConfirmed     MatchDecision = "confirmed"
)

// Valid reports whether d is a decision.
func (d MatchDecision) Valid() bool { return d == MatchFalsePositive || d == MatchConfirmed }

// AMLReviewStatus says whether a check's matches still need a person.
type AMLReviewStatus string

// Review states of an AML check: no match to review; some match without a
// decision that applies to it; every match decided.
const (
	AMLReviewNotRequired AMLReviewStatus = "not_required"
	AMLReviewPending     AMLReviewStatus = "pending"
	AMLReviewResolved    AMLReviewStatus = "resolved"
)

// AMLReviewStatuses lists the review states (OpenAPI enum, list filter).
var AMLReviewStatuses = []AMLReviewStatus{AMLReviewNotRequired, AMLReviewPending, AMLReviewResolved}

// MatchID is the stable id of a match within its check: the same listed
// entity gets the same id on every re-screen, so a decision follows it.
// It is derived from the source and the entity id, which may hold any
// characters, so that it is safe in a URL path.
func MatchID(source, entityID string) string {
	sum := sha256.Sum256([]byte(source + "\x00" + entityID))
	return "mat_" + hex.EncodeToString(sum[:10])
}

// AssignMatchIDs sets the id of every match in results.
func AssignMatchIDs(results []ListResult) {
	for i := range results {
		for j := range results[i].Matches {
			m := &results[i].Matches[j]
			m.ID = MatchID(m.Source, m.EntityID)
		}
	}
}

// ListedEntity is what a list says about an entity, as far as it concerns
// a decision: a false positive stays decided while this does not change.
// The score and the features are left out on purpose: they describe the
// comparison with the screened person, not the listed entity.
type ListedEntity struct {
	Schema        string   `json:"schema"`
	Names         []string `json:"names"`
	DatesOfBirth  []string `json:"datesOfBirth"`
	Countries     []string `json:"countries"`
	Programs      []string `json:"programs"`
	Reference     *string  `json:"reference"`
	Reason        *string  `json:"reason"`
	ListVersionID string   `json:"listVersionId"` // where it was read; not part of the fingerprint
}

// Entity returns the listed entity of a match, its lists sorted.
func (m *MatchRecord) Entity() ListedEntity {
	sorted := func(s []string) []string {
		out := slices.Clone(s)
		if out == nil {
			out = []string{}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return ListedEntity{Schema: m.Schema, Names: sorted(m.Names), DatesOfBirth: sorted(m.DatesOfBirth),
		Countries: sorted(m.Countries), Programs: sorted(m.Programs), Reference: m.Reference, Reason: m.Reason,
		ListVersionID: m.ListVersionID}
}

// Fingerprint is the hex SHA-256 of the entity's fields (not the list
// version): equal fingerprints mean the list says the same about it.
func (e ListedEntity) Fingerprint() string {
	h := sha256.New()
	put := func(s string) { fmt.Fprintf(h, "%d:%s;", len(s), s) }
	putList := func(name string, l []string) {
		put(name)
		fmt.Fprintf(h, "%d[", len(l))
		for _, s := range l {
			put(s)
		}
	}
	put("kycd.entity.v1")
	put(e.Schema)
	putList("names", e.Names)
	putList("dob", e.DatesOfBirth)
	putList("countries", e.Countries)
	putList("programs", e.Programs)
	for _, p := range []*string{e.Reference, e.Reason} {
		if p == nil {
			h.Write([]byte{0})
		} else {
			put(*p)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Changes describes, one sentence per field, how the list's entry moved
// from old to e; empty when nothing that matters changed.
func (e ListedEntity) Changes(old ListedEntity) []string {
	var out []string
	list := func(label string, was, now []string) {
		var added, removed []string
		for _, s := range now {
			if !slices.Contains(was, s) {
				added = append(added, s)
			}
		}
		for _, s := range was {
			if !slices.Contains(now, s) {
				removed = append(removed, s)
			}
		}
		var parts []string
		if len(added) > 0 {
			parts = append(parts, "added "+strings.Join(added, ", "))
		}
		if len(removed) > 0 {
			parts = append(parts, "removed "+strings.Join(removed, ", "))
		}
		if len(parts) > 0 {
			out = append(out, label+": "+strings.Join(parts, "; "))
		}
	}
	text := func(label string, was, now *string) {
		w, n := "", ""
		if was != nil {
			w = *was
		}
		if now != nil {
			n = *now
		}
		if w != n {
			out = append(out, fmt.Sprintf("%s: %q → %q", label, w, n))
		}
	}
	if old.Schema != e.Schema {
		out = append(out, fmt.Sprintf("schema: %s → %s", old.Schema, e.Schema))
	}
	list("names", old.Names, e.Names)
	list("dates of birth", old.DatesOfBirth, e.DatesOfBirth)
	list("countries", old.Countries, e.Countries)
	list("programmes", old.Programs, e.Programs)
	text("reference", old.Reference, e.Reference)
	text("reason", old.Reason, e.Reason)
	return out
}

// MatchReview is a decision recorded on a match, as the API shows it with
// the match.
type MatchReview struct {
	ID        string        `json:"id"` // amd_<ulid>
	Decision  MatchDecision `json:"decision"`
	Note      string        `json:"note"`
	ActorType ActorType     `json:"actorType"`
	ActorID   string        `json:"actorId"`
	DecidedAt string        `json:"decidedAt"`
	// Current is false when the list's entry changed after the decision:
	// it then no longer settles the match, which needs a new decision.
	Current bool `json:"current"`
	// Changes say what changed in the listed entity since the decision.
	Changes []string `json:"changes"`
}

// MatchDecisionRecord is one stored decision (every decision is kept;
// the latest per match applies).
type MatchDecisionRecord struct {
	ID        string
	CheckID   string
	MatchID   string
	MatchKey  string // source/entityId, for people reading the table
	Decision  MatchDecision
	Note      string
	Entity    ListedEntity // the entity as listed when decided
	ActorType ActorType
	ActorID   string
	CreatedAt time.Time
}

// LatestDecisions keeps the newest decision per match id; decisions come
// oldest first.
func LatestDecisions(all []MatchDecisionRecord) map[string]*MatchDecisionRecord {
	out := make(map[string]*MatchDecisionRecord, len(all))
	for i := range all {
		out[all[i].MatchID] = &all[i]
	}
	return out
}

// ApplyMatchDecisions attaches to each match of results its latest
// decision (marked not current when the entity changed since) and returns
// the check's review status and how many matches are confirmed.
func ApplyMatchDecisions(results []ListResult, decisions []MatchDecisionRecord) (AMLReviewStatus, int) {
	latest := LatestDecisions(decisions)
	total, settled, confirmed := 0, 0, 0
	for i := range results {
		for j := range results[i].Matches {
			m := &results[i].Matches[j]
			if m.ID == "" {
				m.ID = MatchID(m.Source, m.EntityID)
			}
			total++
			d, ok := latest[m.ID]
			if !ok {
				m.Review = nil
				if m.Suppressed != nil {
					settled++ // decided false positive on an earlier check of the subject
				}
				continue
			}
			m.Suppressed = nil // the check's own decision comes first
			now := m.Entity()
			r := &MatchReview{ID: d.ID, Decision: d.Decision, Note: d.Note, ActorType: d.ActorType, ActorID: d.ActorID,
				DecidedAt: FormatTime(d.CreatedAt), Current: now.Fingerprint() == d.Entity.Fingerprint(), Changes: []string{}}
			if !r.Current {
				r.Changes = now.Changes(d.Entity)
			} else {
				settled++
				if d.Decision == MatchConfirmed {
					confirmed++
				}
			}
			m.Review = r
		}
	}
	switch {
	case total == 0:
		return AMLReviewNotRequired, 0
	case settled == total:
		return AMLReviewResolved, confirmed
	}
	return AMLReviewPending, confirmed
}

// FindMatch returns the match with id in results, or nil.
func FindMatch(results []ListResult, id string) (*ListResult, *MatchRecord) {
	for i := range results {
		for j := range results[i].Matches {
			m := &results[i].Matches[j]
			if m.ID == id || MatchID(m.Source, m.EntityID) == id {
				return &results[i], m
			}
		}
	}
	return nil, nil
}

// EntityChange is a decided match whose listed entity changed in a later
// list version, as a monitoring alert reports it.
type EntityChange struct {
	MatchID          string        `json:"matchId"`
	Key              string        `json:"key"` // source/entityId
	PreviousDecision MatchDecision `json:"previousDecision"`
	Changes          []string      `json:"changes"`
}
