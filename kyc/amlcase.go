package kyc

import (
	"bytes"
	"time"
)

// AMLCaseStatus is where an AML case stands: open while someone
// investigates a confirmed match, closed once an outcome is recorded.
type AMLCaseStatus string

// The statuses of an AML case.
const (
	AMLCaseOpen   AMLCaseStatus = "open"
	AMLCaseClosed AMLCaseStatus = "closed"
)

// AMLCaseStatuses lists the statuses, for the description and filters.
var AMLCaseStatuses = []AMLCaseStatus{AMLCaseOpen, AMLCaseClosed}

// Valid reports whether s is one of the statuses.
func (s AMLCaseStatus) Valid() bool { return s == AMLCaseOpen || s == AMLCaseClosed }

// AMLCaseOutcome is how an investigation of a confirmed match ended. The
// values are what a compliance officer records in the file:
//   - relationship_refused: the business relationship was not entered (an
//     onboarding that stops here);
//   - relationship_exited: an existing relationship was ended;
//   - relationship_continued_with_measures: the relationship goes on with
//     enhanced due diligence or other measures (say which in a note);
//   - reported: a suspicious-activity report was filed with the authority
//     (the case must carry its record: SAR reference and date);
//   - false_positive_after_investigation: the confirmation was wrong; the
//     listed entity is not the subject after all.
type AMLCaseOutcome string

// The outcomes of an AML case.
const (
	OutcomeRelationshipRefused       AMLCaseOutcome = "relationship_refused"
	OutcomeRelationshipExited        AMLCaseOutcome = "relationship_exited"
	OutcomeContinuedWithMeasures     AMLCaseOutcome = "relationship_continued_with_measures"
	OutcomeReported                  AMLCaseOutcome = "reported"
	OutcomeFalsePositiveInvestigated AMLCaseOutcome = "false_positive_after_investigation"
)

// AMLCaseOutcomes lists the outcomes.
var AMLCaseOutcomes = []AMLCaseOutcome{OutcomeRelationshipRefused, OutcomeRelationshipExited, OutcomeContinuedWithMeasures,
	OutcomeReported, OutcomeFalsePositiveInvestigated}

// Valid reports whether o is one of the outcomes.
func (o AMLCaseOutcome) Valid() bool {
	for _, v := range AMLCaseOutcomes {
		if v == o {
			return true
		}
	}
	return false
}

// AMLCaseEntryKind is what one entry of a case's timeline records.
type AMLCaseEntryKind string

// The kinds of timeline entries. Every change of a case is one entry, so
// the timeline reads as the case's file; the audit chain has the same
// changes with its own hash chain.
const (
	CaseEntryOpened    AMLCaseEntryKind = "opened"    // a confirmed match opened the case
	CaseEntryConfirmed AMLCaseEntryKind = "confirmed" // another match of the check was confirmed while open
	CaseEntryNote      AMLCaseEntryKind = "note"      // a person's note
	CaseEntryAssigned  AMLCaseEntryKind = "assigned"  // assignee set or removed
	CaseEntryDue       AMLCaseEntryKind = "due"       // due date changed
	CaseEntrySAR       AMLCaseEntryKind = "sar"       // a suspicious-activity report recorded
	CaseEntryClosed    AMLCaseEntryKind = "closed"    // outcome recorded
	CaseEntryReopened  AMLCaseEntryKind = "reopened"  // closed case opened again
)

// AMLCaseEntryKinds lists the timeline entry kinds.
var AMLCaseEntryKinds = []AMLCaseEntryKind{CaseEntryOpened, CaseEntryConfirmed, CaseEntryNote, CaseEntryAssigned, CaseEntryDue,
	CaseEntrySAR, CaseEntryClosed, CaseEntryReopened}

// AMLCase is the investigation a confirmed match opens: whose it is, when
// it is due, its timeline, its outcome and the suspicious-activity report
// filed for it, if any. One case at most is open per AML check; a further
// confirmed match on the same check is an entry of that case.
type AMLCase struct {
	ID             string // amc_<ulid>
	OrganizationID string
	Environment    Environment
	CheckID        string
	MatchID        string // the confirmed match that opened it
	MatchKey       string
	Subject        string // the check's first and last name, for lists
	Status         AMLCaseStatus
	Outcome        *AMLCaseOutcome
	AssigneeID     *string
	AssigneeName   *string // filled when read
	DueAt          *time.Time
	OpenedAt       time.Time
	ClosedAt       *time.Time
	UpdatedAt      time.Time
	SAR            *SARRecord
	Timeline       []AMLCaseEntry // filled by a single-case read
}

// Overdue reports whether an open case is past its due time at now.
func (c *AMLCase) Overdue(now time.Time) bool {
	return c.Status == AMLCaseOpen && c.DueAt != nil && now.After(*c.DueAt)
}

// SARRecord is the record that a suspicious-activity report was filed:
// the authority's reference, the day it was filed, and a copy of what was
// filed (sealed like other evidence).
type SARRecord struct {
	Reference  string
	FiledOn    string // YYYY-MM-DD
	File       *SARFile
	RecordedAt time.Time
	ActorType  ActorType
	ActorID    string
}

// SARFile describes the attached copy; its bytes are read separately.
type SARFile struct {
	Name        string
	ContentType string
	Size        int
	SHA256      string
}

// AMLCaseEntry is one line of a case's timeline.
type AMLCaseEntry struct {
	ID        string // ace_<ulid>
	Kind      AMLCaseEntryKind
	Text      string
	ActorType ActorType
	ActorID   string
	ActorName *string // filled when read, for users
	CreatedAt time.Time
}

// MaxSARReferenceLen bounds a SAR reference; MaxSARFileBytes its copy.
const (
	MaxSARReferenceLen = 200
	MaxSARFileBytes    = 10 << 20
)

// SARContentType names the type of a SAR copy from its first bytes, never
// from what the client claims: a PDF, a PNG or JPEG scan, or the XML a
// goAML-style portal produces. "" means the bytes are none of these and
// the file is refused.
func SARContentType(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("%PDF-")):
		return "application/pdf"
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	}
	t := bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if bytes.HasPrefix(t, []byte("<?xml ")) || bytes.HasPrefix(t, []byte("<?xml\t")) {
		return "application/xml"
	}
	return ""
}
