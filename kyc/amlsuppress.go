package kyc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// SubjectKey identifies "the same subject" for suppressions: the same
// organization and environment (kept beside the key, never in it), the
// same normalised first and last name, the same date of birth and the same
// country. Names are compared after Unicode compatibility folding, lower
// case, accents removed and every run of spaces, hyphens, dots and
// apostrophes made one space, so "José  Pérez-Ruiz" and "jose perez ruiz"
// are one subject. First and last name stay apart (not sorted together),
// and a missing date of birth or country is a value of its own: a subject
// screened without a date of birth is not the one screened with it. The
// key is deliberately strict — a false positive suppressed for the wrong
// person would hide a real hit, while a key that is too strict only asks a
// reviewer to decide once more.
func SubjectKey(firstName, lastName string, dob, country *string) string {
	h := sha256.New()
	put := func(s string) { fmt.Fprintf(h, "%d:%s;", len(s), s) }
	put("kycd.subject.v1")
	put(NormalizeSubjectName(firstName))
	put(NormalizeSubjectName(lastName))
	for _, p := range []*string{dob, country} {
		if p == nil {
			put("-")
		} else {
			put("=" + strings.ToUpper(strings.TrimSpace(*p)))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// NormalizeSubjectName is the name part of SubjectKey.
func NormalizeSubjectName(name string) string {
	t := transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	folded, _, err := transform.String(t, name)
	if err != nil {
		folded = name // the transformers used here do not fail on valid text; keep the raw name rather than guess
	}
	folded = strings.ToLower(folded)
	var b strings.Builder
	space := false
	for _, r := range folded {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}

// MatchSuppression says that a match was left out of review because a
// person decided, on an earlier check of the same subject, that this
// listed entity is not them, and the list still describes the entity as
// it did then. It is recorded with the screening that applied it.
type MatchSuppression struct {
	ID         string `json:"id"`         // sup_<ulid>
	DecisionID string `json:"decisionId"` // amd_<ulid>: the false_positive decision
	CheckID    string `json:"checkId"`    // the check the decision was made on
	DecidedAt  string `json:"decidedAt"`
}

// Suppression is a stored suppression: a false_positive decision carried
// to every later screening of the same subject in the same organization
// and environment, while the listed entity's fingerprint is unchanged and
// until it is lifted (by a person, or by a later decision on the same
// subject and match).
type Suppression struct {
	ID             string
	OrganizationID string
	Environment    Environment
	SubjectKey     string
	MatchID        string
	MatchKey       string
	DecisionID     string
	CheckID        string
	Fingerprint    string // ListedEntity.Fingerprint when decided
	CreatedAt      time.Time
	LiftedAt       *time.Time
	LiftedByType   *ActorType
	LiftedByID     *string
	LiftNote       *string
}

// ApplySuppressions marks every match of results that an active
// suppression covers, when the entity's fingerprint is still the one
// decided on, and returns how many it marked. A match with its own
// decision on the check is left to that decision (ApplyMatchDecisions).
func ApplySuppressions(results []ListResult, sups []Suppression, own []MatchDecisionRecord) int {
	byMatch := make(map[string]*Suppression, len(sups))
	for i := range sups {
		if sups[i].LiftedAt == nil {
			byMatch[sups[i].MatchID] = &sups[i]
		}
	}
	decided := LatestDecisions(own)
	n := 0
	for i := range results {
		for j := range results[i].Matches {
			m := &results[i].Matches[j]
			if m.ID == "" {
				m.ID = MatchID(m.Source, m.EntityID)
			}
			m.Suppressed = nil
			s := byMatch[m.ID]
			if s == nil || decided[m.ID] != nil || m.Entity().Fingerprint() != s.Fingerprint {
				continue
			}
			m.Suppressed = &MatchSuppression{ID: s.ID, DecisionID: s.DecisionID, CheckID: s.CheckID, DecidedAt: FormatTime(s.CreatedAt)}
			n++
		}
	}
	return n
}

// Unsuppressed counts the matches that need a person: neither suppressed
// nor settled by a current decision.
func Unsuppressed(results []ListResult) int {
	n := 0
	for _, r := range results {
		for i := range r.Matches {
			m := &r.Matches[i]
			if m.Suppressed == nil && (m.Review == nil || !m.Review.Current) {
				n++
			}
		}
	}
	return n
}
