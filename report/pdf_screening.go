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

	if len(r.Matches) == 0 {
		return
	}
	mt := d.newTable(fmt.Sprintf("Match records (%d)", len(r.Matches)), true,
		col{head: "#", w: 0.035, align: "R"}, col{head: "Listed name / matched name", w: 0.185},
		col{head: "Score", w: 0.055, align: "R"}, col{head: "List / provider / version", w: 0.16},
		col{head: "Dates of birth", w: 0.105}, col{head: "Country", w: 0.07},
		col{head: "Programmes", w: 0.14}, col{head: "Why it matched (features)", w: 0.25})
	for i := range r.Matches {
		m := &r.Matches[i]
		mt.row(strconv.Itoa(i+1), matchNames(m), strconv.FormatFloat(m.Score, 'f', 3, 64),
			m.Source+"\n"+m.Provider+"\n"+m.ListVersionID, list(m.DatesOfBirth, "\n"), list(m.Countries, ", "),
			matchPrograms(m), features(m.Features))
	}
	mt.end()
}

// matchNames prints the entity's primary name, the name that matched
// (with its type: primary, alias…), the other names and the entity id.
func matchNames(m *kyc.MatchRecord) string {
	var b strings.Builder
	primary := m.MatchedName
	if len(m.Names) > 0 {
		primary = m.Names[0]
	}
	b.WriteString(orNone(primary))
	b.WriteString("\nmatched: " + orNone(m.MatchedName))
	if m.MatchedNameType != "" {
		b.WriteString(" (" + m.MatchedNameType + ")")
	}
	var aka []string
	for _, n := range m.Names {
		if n != primary && n != m.MatchedName {
			aka = append(aka, n)
		}
	}
	if len(aka) > 0 {
		b.WriteString("\nalso: " + strings.Join(aka, "; "))
	}
	b.WriteString("\nentity " + orNone(m.EntityID))
	if m.Schema != "" {
		b.WriteString(" (" + m.Schema + ")")
	}
	return b.String()
}

// matchPrograms prints the programmes with the listing's reference and
// reason, which say why the entity is listed.
func matchPrograms(m *kyc.MatchRecord) string {
	s := list(m.Programs, ", ")
	if m.Reference != nil && *m.Reference != "" {
		s += "\nref. " + *m.Reference
	}
	if m.Reason != nil && *m.Reason != "" {
		s += "\n" + *m.Reason
	}
	return s
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
