package kyc

import (
	"encoding/json"
	"time"
)

// AMLStatus is the rolled-up verdict of an AML check (spec §3.1, §3.2).
type AMLStatus string

// AML check statuses: no_match when every list is clear, potential_match
// when any list has a hit, failed when no list has a hit but one could not
// be screened (fail-closed: never a clean pass).
const (
	AMLNoMatch        AMLStatus = "no_match"
	AMLPotentialMatch AMLStatus = "potential_match"
	AMLFailed         AMLStatus = "failed"
)

// AMLStatuses lists every status, for validation and the OpenAPI enum.
var AMLStatuses = []AMLStatus{AMLNoMatch, AMLPotentialMatch, AMLFailed}

// ListStatus is the outcome of screening against one kind of list.
type ListStatus string

// Per-list outcomes. ListNotScreened is a kind the organization does not
// screen (its AML kinds setting): neither a hit nor an error, it never
// changes the check's verdict.
const (
	ListClear       ListStatus = "clear"
	ListHit         ListStatus = "hit"
	ListError       ListStatus = "error"
	ListNotScreened ListStatus = "not_screened"
)

// RiskLevel grades a result. Per list: low when clear; high for any
// sanctions hit and for any hit scoring at least HighRiskScore; medium for
// other PEP and adverse-media hits; none (null) when the list could not be
// screened. A check's level is the highest of its lists' and null when
// nothing matched.
type RiskLevel string

// Risk levels, lowest first.
const (
	RiskLow    RiskLevel = "low"
	RiskMedium RiskLevel = "medium"
	RiskHigh   RiskLevel = "high"
)

// HighRiskScore is the match score from which a PEP or adverse-media hit
// is high risk: at that score the name, and the date of birth when both
// sides have one, agree almost exactly.
const HighRiskScore = 0.95

func (r RiskLevel) rank() int {
	switch r {
	case RiskLow:
		return 1
	case RiskMedium:
		return 2
	case RiskHigh:
		return 3
	}
	return 0
}

// AMLCheck is a standalone screening of one person (spec §2.3).
type AMLCheck struct {
	ID                string
	PublicID          string
	OrganizationID    string
	Environment       Environment
	FirstName         string
	LastName          string
	DOB               *string
	Country           *string
	MonitoringEnabled bool
	Status            AMLStatus
	RiskLevel         *RiskLevel
	MatchCount        int
	Threshold         float64
	Results           []ListResult
	// ReviewStatus says whether every match has a current decision;
	// ResolvedAt is when the last one was decided.
	ReviewStatus   AMLReviewStatus
	ResolvedAt     *time.Time
	ConfirmedCount int // matches decided confirmed (set with the decisions)
	LastScreenedAt time.Time
	NextScreenAt   *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
	// History is the monitoring history, oldest first, when loaded.
	History []Screening
	// ErasedAt: the retention period ended and the subject's name, date of
	// birth, country and results were erased; the row is the tombstone.
	ErasedAt *time.Time
}

// ListResult is the item of results: one per list kind.
type ListResult struct {
	CheckType string     `json:"checkType"`
	Provider  string     `json:"provider"`
	Status    ListStatus `json:"status"`
	// RiskLevel is low when clear, medium or high on a hit, and null when
	// the list was not screened (error, not_screened): an error graded
	// "low" would read as a clean result to anyone who looks only at the
	// level.
	RiskLevel  *RiskLevel    `json:"riskLevel"`
	MatchCount int           `json:"matchCount"`
	Matches    []MatchRecord `json:"matches"`
	// Lists are the list versions screened, so a result can be traced to
	// the exact data it was computed from.
	Lists []ListVersionRef `json:"lists"`
	Error *string          `json:"error"`
}

// UnmarshalJSON reads a stored result. Results stored before the risk
// level of a list that was not screened (error, not_screened) became null
// say "low" there; they are read as null, so no client ever sees a list
// that was not screened graded low.
func (r *ListResult) UnmarshalJSON(b []byte) error {
	type plain ListResult
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if p.Status == ListError || p.Status == ListNotScreened {
		p.RiskLevel = nil
	}
	*r = ListResult(p)
	return nil
}

// Risk returns a pointer to level, for ListResult.RiskLevel.
func Risk(level RiskLevel) *RiskLevel { return &level }

// ListVersionRef identifies one imported list version.
type ListVersionRef struct {
	ID          string `json:"id"`
	Source      string `json:"source"`
	Provider    string `json:"provider"`
	EntityCount int    `json:"entityCount"`
	ImportedAt  string `json:"importedAt"`
}

// MatchRecord is one listed entity resembling the screened person.
type MatchRecord struct {
	// ID is stable across re-screens (MatchID); decisions refer to it.
	ID              string         `json:"id"`
	EntityID        string         `json:"entityId"`
	ListVersionID   string         `json:"listVersionId"`
	Source          string         `json:"source"`
	Provider        string         `json:"provider"`
	Schema          string         `json:"schema"`
	Score           float64        `json:"score"`
	MatchedName     string         `json:"matchedName"`
	MatchedNameType string         `json:"matchedNameType"`
	Names           []string       `json:"names"`
	DatesOfBirth    []string       `json:"datesOfBirth"`
	Countries       []string       `json:"countries"`
	Programs        []string       `json:"programs"`
	Reference       *string        `json:"reference"`
	Reason          *string        `json:"reason"`
	Features        map[string]any `json:"features"`
	// Review is the latest decision on the match, attached when the check
	// is read (ApplyMatchDecisions); never stored with the results.
	Review *MatchReview `json:"review"`
	// Suppressed is set when an earlier false_positive decision on the
	// same subject covers the match (ApplySuppressions); stored with the
	// screening that applied it.
	Suppressed *MatchSuppression `json:"suppressed"`
}

// Key identifies the entity across re-screens (a new match is one whose
// key was not in the previous screening).
func (m *MatchRecord) Key() string { return m.Source + "/" + m.EntityID }

// RollUp sets a check's status, risk level and match count from its list
// results (spec §3.2): potential_match when any list has a hit, else
// failed when any list could not be screened, else no_match. A kind that
// was not screened (not_screened) counts as neither. A hit wins
// over an error because both need a person to look, and the hit is what
// they must see (and what match_found announces); the error stays in the
// list's result.
func RollUp(results []ListResult) (AMLStatus, *RiskLevel, int) {
	status, count := AMLNoMatch, 0
	var level RiskLevel
	for _, r := range results {
		count += r.MatchCount
		switch r.Status {
		case ListError:
			if status == AMLNoMatch {
				status = AMLFailed
			}
		case ListHit:
			status = AMLPotentialMatch
			if r.RiskLevel != nil && r.RiskLevel.rank() > level.rank() {
				level = *r.RiskLevel
			}
		}
	}
	if count == 0 {
		return status, nil, 0
	}
	return status, &level, count
}

// AMLCheckInput is the body of POST /v1/aml-checks.
type AMLCheckInput struct {
	FirstName  *string
	LastName   *string
	DOB        *string
	Country    *string
	Monitoring bool
}

// Validate returns every problem with the input at once.
func (in *AMLCheckInput) Validate(now time.Time) []FieldError {
	var errs []FieldError
	name := func(field string, v *string) {
		switch {
		case v == nil:
			errs = append(errs, FieldError{Field: field, Message: "is required"})
		default:
			if msg := NameProblem(*v); msg != "" {
				errs = append(errs, FieldError{Field: field, Message: msg})
			}
		}
	}
	name("firstName", in.FirstName)
	name("lastName", in.LastName)
	if in.DOB != nil {
		if msg := checkDOB(*in.DOB, now); msg != "" {
			errs = append(errs, FieldError{Field: "dob", Message: msg})
		}
	}
	if in.Country != nil && !ValidCountry(*in.Country) {
		errs = append(errs, FieldError{Field: "country", Message: "must be an ISO 3166-1 alpha-2 country code in upper case, e.g. GB"})
	}
	return errs
}

// AMLCheckFilter selects checks for a list.
type AMLCheckFilter struct {
	Status       AMLStatus       // "" for all
	ReviewStatus AMLReviewStatus // "" for all
	OldestFirst  bool            // the default is newest first
	Page, Size   int
}

// Screening is one entry of a check's monitoring history: the first
// screening and every re-screen.
type Screening struct {
	ID             string     `json:"id"`
	Trigger        string     `json:"trigger"` // initial, daily, list_update, manual
	ScreenedAt     time.Time  `json:"-"`
	Status         AMLStatus  `json:"status"`
	PreviousStatus *AMLStatus `json:"previousStatus"`
	RiskLevel      *RiskLevel `json:"riskLevel"`
	MatchCount     int        `json:"matchCount"`
	NewMatches     []string   `json:"newMatches"`     // keys of matches not in the previous screening
	RemovedMatches []string   `json:"removedMatches"` // keys no longer matched
	Changed        bool       `json:"changed"`        // status changed or a new match appeared
	// ChangedEntities are decided matches whose listed entity changed in
	// a later list version: they alert again and need a new decision.
	ChangedEntities []EntityChange `json:"changedEntities"`
	ListVersions    []string       `json:"listVersions"`
	Results         []ListResult   `json:"-"`
	// ErasedAt: its matches were erased when retention ended (the trigger,
	// dates, statuses and counts stay).
	ErasedAt *time.Time `json:"-"`
}

// Screening triggers.
const (
	TriggerInitial    = "initial"
	TriggerDaily      = "daily"
	TriggerListUpdate = "list_update"
	TriggerManual     = "manual" // POST /v1/aml-checks/{id}/rescreen
)
