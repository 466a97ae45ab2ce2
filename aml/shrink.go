package aml

import (
	"fmt"
	"slices"

	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// DefaultMaxShrink is the share of a source's entities a new version may
// lose without being confirmed (ImportSpec.AllowShrink).
const DefaultMaxShrink = 0.20

// ShrinkError refuses a new version of a source that changes its kind or
// loses more than the allowed share of its entities: one mistaken upload
// (a one-row CSV under the sanctions source, with kind pep) replaced the
// whole OFAC list, and a listed person's live check answered no_match
// (issue 23). Confirm with ImportSpec.AllowShrink (kycd lists import
// --allow-shrink, the console's confirmation box).
type ShrinkError struct {
	Source            string
	KindBefore, Kind  string
	Before, After     int     // entities of the active version and of the new one; After -1 when not yet counted
	MaxShrink         float64 // the share that may go without confirmation
	KindChange, Large bool
}

func (e *ShrinkError) Error() string {
	if e.KindChange {
		return fmt.Sprintf("%s is a %s list of %d entities; this version would make it a %s list (%s) and %s would lose its %s list from %s. "+
			"Refused: confirm the change to import it anyway (kycd lists import --allow-shrink, or the console's confirmation box), or import it under another source name.",
			e.Source, e.KindBefore, e.Before, e.Kind, countText(e.After), e.Source, e.KindBefore, e.Source)
	}
	return fmt.Sprintf("%s would go from %d entities to %d (%.1f%% fewer; more than %.0f%% needs confirming). "+
		"Refused. If the list really shrank, confirm to import it anyway (kycd lists import --allow-shrink, or the console's confirmation box).",
		e.Source, e.Before, e.After, 100*float64(e.Before-e.After)/float64(e.Before), 100*e.MaxShrink)
}

// Summary is what changed, for the audit row of a confirmed import.
func (e *ShrinkError) Summary() string {
	return fmt.Sprintf("source %s, kind %s → %s, entities %d → %d", e.Source, e.KindBefore, e.Kind, e.Before, e.After)
}

func countText(n int) string {
	if n < 0 {
		return "not counted yet"
	}
	return fmt.Sprintf("%d entities", n)
}

// checkShrink compares the new version of spec.Source (count entities, or
// -1 before they are counted: only the kind is checked) with the source's
// active version in active. nil when there is none, when it is within the
// limits, or when spec.AllowShrink confirms it.
func checkShrink(spec ImportSpec, active []*store.ListVersion, count int) error {
	if spec.AllowShrink {
		return nil
	}
	maxShrink := spec.MaxShrink
	if maxShrink <= 0 {
		maxShrink = DefaultMaxShrink
	}
	for _, v := range active {
		if v.Source != spec.Source {
			continue
		}
		e := &ShrinkError{Source: v.Source, KindBefore: v.Kind, Kind: string(spec.Kind), Before: v.EntityCount, After: count, MaxShrink: maxShrink}
		e.KindChange = v.Kind != string(spec.Kind)
		e.Large = count >= 0 && float64(count) < float64(v.EntityCount)*(1-maxShrink)
		if e.KindChange || e.Large {
			return e
		}
	}
	return nil
}

// lostKinds are the kinds some active list covered before the new version
// of source (of kind) replaced the source's active one, and none covers
// after.
func lostKinds(active []*store.ListVersion, source string, kind screening.Kind) []screening.Kind {
	before, after := map[string]bool{}, map[string]bool{string(kind): true}
	for _, v := range active {
		before[v.Kind] = true
		if v.Source != source {
			after[v.Kind] = true
		}
	}
	var out []screening.Kind
	for _, k := range screening.Kinds {
		if before[string(k)] && !after[string(k)] {
			out = append(out, k)
		}
	}
	return out
}

// auditLostKinds writes, for each organization that screens a lost kind
// (it chose it, or it screens the default scope, which keeps lost kinds:
// see Service.Scope), an audit row: its live checks of that kind now
// answer error until a list of it is imported.
func auditLostKinds(tx *store.Tx, orgs []*kyc.Organization, v *store.ListVersion, lost []screening.Kind) error {
	for _, o := range orgs {
		for _, k := range lost {
			if o.AMLKinds != nil && !slices.Contains(o.AMLKinds, string(k)) {
				continue
			}
			reason := fmt.Sprintf("no %s list is left after version %s of %s (now %s): live checks answer error for %s until a %s list is imported",
				k, v.ID, v.Source, v.Kind, k, k)
			if err := tx.AppendAudit(store.AuditEntry{OrganizationID: o.ID, Environment: kyc.Live, ResourceType: "list_version", ResourceID: v.ID,
				Action: "watch_list.kind_lost", Reason: &reason}); err != nil {
				return err
			}
		}
	}
	return nil
}
