package console

import (
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
)

// The case view reads the engine's processingResult as plain JSON (maps),
// the way the API returns it: signals that later engines add, or fields
// they add to a signal, show up without a change here.

type captureView struct {
	ID, Label, URL string
	Width, Height  int
	Method         string
	CapturedAt     time.Time
}

func captureLabel(c kyc.Capture) string {
	var parts []string
	switch c.Kind {
	case "document":
		parts = append(parts, "Document")
		if c.Side != nil {
			parts = append(parts, *c.Side)
		}
		if c.DocumentType != nil {
			parts = append(parts, "("+human(*c.DocumentType))
			if c.Country != nil {
				parts[len(parts)-1] += ", " + *c.Country
			}
			parts[len(parts)-1] += ")"
		}
	case "selfie":
		parts = append(parts, "Selfie")
	default:
		parts = append(parts, strings.ToUpper(c.Kind[:1])+human(c.Kind[1:]))
		if c.Side != nil {
			parts = append(parts, *c.Side)
		}
	}
	if c.Attempt > 1 {
		parts = append(parts, fmt.Sprintf("· attempt %d", c.Attempt))
	}
	return strings.Join(parts, " ")
}

// compareRow is one line of "what the document says against what the
// applicant said".
type compareRow struct {
	Field                          string
	Applicant, Confirmed, Document string
	Differs                        bool
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func strOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// signalData returns the data of the named signal (the first, for
// per-image signals).
func signalData(pr map[string]any, name string) map[string]any {
	for _, s := range listOf(pr["signals"]) {
		if sm := mapOf(s); sm != nil && sm["name"] == name {
			return mapOf(sm["data"])
		}
	}
	return nil
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

// norm makes values comparable: letters and digits, upper case.
func norm(s string) string { return kyc.NormalizeDocumentNumber(s) }

// compare lines up the applicant record, what the applicant confirmed in
// the portal and what the server read from the document (its MRZ, or a
// licence's barcode), and marks the rows whose values disagree.
func compare(a *kyc.Applicant, doc *kyc.DocumentData, pr map[string]any) []compareRow {
	data := signalData(pr, "document_data")
	read := mapOf(data["mrz"])
	if read == nil {
		// A driving licence or identity card read from its PDF417
		// barcode: the same fields, under "document".
		read = mapOf(data["document"])
	}
	conf := func(f func(*kyc.DocumentData) string) string {
		if doc == nil {
			return ""
		}
		return f(doc)
	}
	rows := []compareRow{
		{Field: "Given names", Applicant: a.FirstName, Document: strOf(read["givenNames"])},
		{Field: "Surname", Applicant: a.LastName, Document: strOf(read["surname"])},
		{Field: "Date of birth", Applicant: deref(a.DOB), Document: strOf(read["birthDate"])},
		{Field: "Country / nationality", Applicant: deref(a.Country), Confirmed: conf(func(d *kyc.DocumentData) string { return d.IssuingCountry }),
			Document: strOf(read["nationalityIso"])},
		{Field: "Document type", Confirmed: conf(func(d *kyc.DocumentData) string { return human(d.DocumentType) }), Document: strOf(read["documentCode"])},
		{Field: "Document number", Confirmed: conf(func(d *kyc.DocumentData) string { return d.DocumentNumber }), Document: strOf(read["documentNumber"])},
		{Field: "Expiry date", Confirmed: conf(func(d *kyc.DocumentData) string { return d.ExpiryDate }), Document: strOf(read["expiryDate"])},
	}
	for i := range rows {
		row := &rows[i]
		switch row.Field {
		case "Document type":
			continue // the MRZ's code (P, ID, I<) is not the portal's word
		case "Country / nationality":
			// The issuing country may differ from a nationality legitimately;
			// compare the applicant's country with the document's nationality.
			row.Differs = differ(row.Applicant, row.Document)
		case "Document number":
			row.Differs = differMasked(row.Confirmed, row.Document)
		default:
			row.Differs = differ(row.Applicant, row.Document) || differ(row.Confirmed, row.Document) || differ(row.Applicant, row.Confirmed)
		}
	}
	return rows
}

func differ(a, b string) bool { return a != "" && b != "" && norm(a) != norm(b) }

// differMasked compares a full number with one the engine masked to its
// last four characters (processingResult is not encrypted at rest).
func differMasked(full, masked string) bool {
	if full == "" || masked == "" {
		return false
	}
	m := strings.TrimLeft(masked, "*")
	return !strings.HasSuffix(norm(full), norm(m))
}

type faceMatchView struct {
	Status                          string
	Similarity, Distance, Threshold float64
	Detail                          string
	Compared                        bool
}

func faceMatch(pr map[string]any) *faceMatchView {
	for _, s := range listOf(pr["signals"]) {
		sm := mapOf(s)
		if sm == nil || sm["name"] != "face_match" {
			continue
		}
		d := mapOf(sm["data"])
		v := &faceMatchView{Status: strOf(sm["status"]), Detail: strOf(sm["detail"])}
		if sim, ok := d["similarity"].(float64); ok {
			v.Similarity, v.Compared = sim, true
		}
		v.Distance, _ = d["distance"].(float64)
		v.Threshold, _ = d["threshold"].(float64)
		return v
	}
	return nil
}

type signalView struct {
	Name, Image, Status, Detail string
	Score                       float64
	Findings                    []string
}

func signals(pr map[string]any, caps []kyc.Capture) []signalView {
	labels := map[string]string{}
	for _, c := range caps {
		labels[c.ID] = captureLabel(c)
	}
	var out []signalView
	for _, s := range listOf(pr["signals"]) {
		sm := mapOf(s)
		if sm == nil {
			continue
		}
		v := signalView{Name: human(strOf(sm["name"])), Status: strOf(sm["status"]), Detail: strOf(sm["detail"])}
		v.Score, _ = sm["score"].(float64)
		if id := strOf(sm["captureId"]); id != "" {
			v.Image = labels[id]
			if v.Image == "" {
				v.Image = id
			}
		}
		for _, f := range listOf(sm["findings"]) {
			fm := mapOf(f)
			v.Findings = append(v.Findings, strOf(fm["code"])+": "+strOf(fm["message"]))
		}
		out = append(out, v)
	}
	return out
}

type reasonView struct{ Code, Action, Message, Signal string }

func reasons(pr map[string]any) []reasonView {
	var out []reasonView
	for _, x := range listOf(pr["reasons"]) {
		m := mapOf(x)
		if m == nil {
			continue
		}
		out = append(out, reasonView{Code: strOf(m["code"]), Action: strOf(m["action"]), Message: strOf(m["message"]), Signal: human(strOf(m["signal"]))})
	}
	return out
}

type duplicateView struct {
	RequestID, ApplicantID, What, Status string
}

// duplicates lists the other requests sharing the document number, an
// image or the person's details (duplicates) or the face (duplicate_face).
func duplicates(pr map[string]any) []duplicateView {
	var out []duplicateView
	for _, x := range listOf(signalData(pr, "duplicates")["duplicates"]) {
		m := mapOf(x)
		out = append(out, duplicateView{RequestID: strOf(m["requestId"]), ApplicantID: strOf(m["applicantId"]),
			What: human(strOf(m["what"])), Status: strOf(m["status"])})
	}
	for _, x := range listOf(signalData(pr, "duplicate_face")["matches"]) {
		m := mapOf(x)
		what := "face"
		if d, ok := m["distance"].(float64); ok {
			what = fmt.Sprintf("face (distance %.2f)", d)
		}
		out = append(out, duplicateView{RequestID: strOf(m["requestId"]), ApplicantID: strOf(m["applicantId"]), What: what})
	}
	return out
}

type timelineView struct {
	Type, From, To, Actor, Reason string
	At                            time.Time
}

func timeline(evs []kyc.KYCEvent, names map[string]string, personal bool) []timelineView {
	out := make([]timelineView, 0, len(evs))
	for _, e := range evs {
		v := timelineView{Type: human(strings.TrimPrefix(strings.TrimPrefix(e.Type, "svc."), "kyc.")), To: human(e.ToStatus), At: e.CreatedAt,
			Actor: human(e.ActorType)}
		if e.FromStatus != nil {
			v.From = human(*e.FromStatus)
		}
		if e.ActorID != nil {
			v.Actor += " " + actorName(names, e.ActorID)
		}
		if personal && e.Reason != nil {
			v.Reason = *e.Reason
		}
		out = append(out, v)
	}
	return out
}

type sandboxView struct{ Computed string }

// sandbox says what live would have decided, for a sandbox request.
func sandbox(pr map[string]any) *sandboxView {
	if b, _ := pr["sandbox"].(bool); !b {
		return nil
	}
	return &sandboxView{Computed: strOf(pr["computedDecision"])}
}
