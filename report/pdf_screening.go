package report

import (
	"fmt"
	"strconv"
	"strings"

	"kycd/kyc"
)

// checkTypeTitle names a list kind for a heading.
func checkTypeTitle(t string) string {
	switch t {
	case "sanctions":
		return "Sanctions"
	case "pep":
		return "Politically exposed persons"
	case "adverse_media":
		return "Adverse media"
	}
	return orNone(t)
}

// screenings prints each list's result: its outcome, the list versions it
// was computed from and every match record with the features that explain
// its score. KYC and AML reports share it so the two read alike.
func (d *doc) screenings(results []kyc.ListResult) {
	if len(results) == 0 {
		d.para("No screening was run.", regular, 9)
		return
	}
	for i := range results {
		d.listResult(&results[i])
	}
}

func (d *doc) listResult(r *kyc.ListResult) {
	title := fmt.Sprintf("%s — %s", checkTypeTitle(r.CheckType), orNone(string(r.Status)))
	if r.MatchCount > 0 {
		title += fmt.Sprintf(" (%d %s, risk %s)", r.MatchCount, plural(r.MatchCount, "match", "matches"), riskText(r.RiskLevel))
	}
	d.ensure(d.listResultHeight(r))
	d.subsection(title)
	t := d.kvTable()
	t.kv("Check type", r.CheckType, false)
	t.kv("Provider", r.Provider, false)
	t.kv("Status", string(r.Status), false)
	t.kv("Risk level", riskText(r.RiskLevel), false)
	t.kv("Matches", strconv.Itoa(r.MatchCount), false)
	if r.Error != nil {
		t.kv("Error", *r.Error, false)
	}
	t.end()

	lv := d.newTable("List versions screened", true,
		col{head: "List version id", w: 0.25, style: mono}, col{head: "Source", w: 0.22}, col{head: "Provider", w: 0.20},
		col{head: "Entities", w: 0.10, align: "R"}, col{head: "Imported", w: 0.23})
	if len(r.Lists) == 0 {
		lv.row(none, "No list version recorded.", "", "", "")
	}
	for _, l := range r.Lists {
		lv.row(l.ID, l.Source, l.Provider, strconv.Itoa(l.EntityCount), l.ImportedAt)
	}
	lv.end()

	for i := range r.Matches {
		d.matchRecord(i, len(r.Matches), &r.Matches[i])
	}
}

// listResultHeight is what a list's title, facts and first list version
// take: they are read together, so the title keeps them on its page (the
// matches that follow may break). A section whose first part is a list
// keeps it with its heading.
func (d *doc) listResultHeight(r *kyc.ListResult) float64 {
	facts := [][]string{{"Check type", r.CheckType}, {"Provider", r.Provider}, {"Status", string(r.Status)},
		{"Risk level", riskText(r.RiskLevel)}, {"Matches", strconv.Itoa(r.MatchCount)}}
	if r.Error != nil {
		facts = append(facts, []string{"Error", *r.Error})
	}
	h := 7.0 + 2.5 + 14 // the title, the gap under the facts, the versions' caption, header and first row
	for _, f := range facts {
		h += d.kvTable().rowHeight(f, []fontStyle{bold, regular})
	}
	return h
}

// screeningsHeight is what a section of screenings keeps with its
// heading: the first list's title, facts and versions.
func (d *doc) screeningsHeight(results []kyc.ListResult) float64 {
	if len(results) == 0 {
		return 0
	}
	return d.listResultHeight(&results[0])
}

// matchRecord prints one match as a card: a heading with the listed name
// and the score, then its facts one a row, each value across the width of
// the page. Programme names, listing reasons and the score's explanation
// are sentences; in a column of a wide table they broke every two words.
func (d *doc) matchRecord(i, n int, m *kyc.MatchRecord) {
	primary := m.MatchedName
	if len(m.Names) > 0 {
		primary = m.Names[0]
	}
	matched := orNone(m.MatchedName)
	if m.MatchedNameType != "" {
		matched += " (" + m.MatchedNameType + ")"
	}
	var aka []string
	for _, name := range m.Names {
		if name != primary && name != m.MatchedName {
			aka = append(aka, name)
		}
	}
	if len(aka) > 0 {
		matched += "; also: " + strings.Join(aka, "; ")
	}
	entity := orNone(m.EntityID)
	if m.Schema != "" {
		entity += " (" + m.Schema + ")"
	}
	programmes := list(m.Programs, "; ")
	if m.Reference != nil && *m.Reference != "" {
		programmes += " · ref. " + *m.Reference
	}
	rows := [][]string{{"Matched name", matched},
		{"Entity and list", entity + " · " + orNone(m.Source) + " · " + orNone(m.Provider) + " · version " + orNone(m.ListVersionID)},
		{"Born · countries", list(m.DatesOfBirth, ", ") + " · " + list(m.Countries, ", ")},
		{"Programmes", programmes}, {"Listing reason", optStr(m.Reason)},
		{"Why it matched", strings.ReplaceAll(features(m.Features), "\n", "; ")}}
	if d.deciders != nil {
		rows = append(rows, d.matchDecision(m.Review)...)
	}

	title := fmt.Sprintf("Match %d of %d — %s — score %s", i+1, n, orNone(primary), strconv.FormatFloat(m.Score, 'f', 3, 64))
	if d.deciders != nil {
		switch {
		case m.Review == nil:
			title += " — undecided"
		case !m.Review.Current:
			title += " — decision outdated"
		default:
			title += " — " + strings.ReplaceAll(string(m.Review.Decision), "_", " ")
		}
	}
	d.font(bold, 9)
	titleLines := d.wrap(title, contentW)
	// A card is read whole: it starts on a new page unless it fits
	// (a card taller than half a page keeps at least its first rows).
	t := d.kvTable()
	h := float64(len(titleLines))*4.5 + 1
	for _, r := range rows {
		h += t.rowHeight(r, []fontStyle{bold, regular})
	}
	d.ensure(min(h, bodyHeight/2))
	d.font(bold, 9)
	d.f.SetTextColor(20, 40, 90)
	for _, l := range titleLines {
		d.drawLine(margin, d.y()+0.5, contentW, 4.5, l, "L")
		d.setY(d.y() + 4.5)
	}
	d.f.SetTextColor(0, 0, 0)
	d.setY(d.y() + 1)
	for _, r := range rows {
		t.kv(r[0], r[1], false)
	}
	t.end()
}

// matchDecision is a match card's decision rows: what was decided, the
// note, who and when, and whether it still applies.
func (d *doc) matchDecision(r *kyc.MatchReview) [][]string {
	if r == nil {
		return [][]string{{"Decision", "none yet: a reviewer must compare this match with the subject"}}
	}
	what := decisionText(r.Decision)
	if !r.Current {
		what += " — no longer applies: the list's entry changed since (" + strings.Join(r.Changes, "; ") + "); a new decision is needed"
	}
	who := d.deciders[r.ActorID].Text()
	if d.deciders[r.ActorID] == nil {
		who = orNone(r.ActorID)
	}
	return [][]string{{"Decision", what}, {"Note", orNone(r.Note)}, {"Decided by", who + " on " + r.DecidedAt}}
}

// decisionText names a match decision for people.
func decisionText(v kyc.MatchDecision) string {
	switch v {
	case kyc.MatchFalsePositive:
		return "false positive (not the subject)"
	case kyc.MatchConfirmed:
		return "confirmed (the subject is the listed entity)"
	}
	return orNone(string(v))
}

// riskText prints a risk level; none for a list that could not be
// screened.
func riskText(l *kyc.RiskLevel) string {
	if l == nil {
		return none
	}
	return string(*l)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
