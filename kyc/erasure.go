package kyc

import "time"

// Retention (docs/personal-data.md). Anti-money-laundering law requires
// keeping the verification record of a decided live request for a set
// period after the decision (AMLD art. 40: five years after the business
// relationship ends); until then an erasure request is recorded and
// carried out when the period ends. Data of requests never decided
// (abandoned, expired, cancelled) and sandbox test data are kept only a
// short time after the last activity. Each organization may change the
// periods (kycd orgs update --retention-…).
type RetentionPolicy struct {
	DecidedYears int // after the later of the last decision and the relationship end, decided live requests
	InactiveDays int // live, nothing decided: after the last activity
	SandboxDays  int // sandbox: after the last activity (applicants and AML checks)
	// AMLYears: live AML checks that are not monitored, after their last
	// screening; and each monitoring history row, after it was screened.
	AMLYears int
}

// DefaultRetention is the policy of an organization that set none.
var DefaultRetention = RetentionPolicy{DecidedYears: RetainDecidedYears, InactiveDays: 90, SandboxDays: 30, AMLYears: RetainAMLYears}

// RetainAMLYears is the default retention of AML checks and monitoring
// history: the same five years as verification records (AMLD art. 40).
const RetainAMLYears = 5

// RetainDecidedYears is the default retention of decided live requests.
const RetainDecidedYears = 5

// ErasureRule names why an erasure happened.
type ErasureRule string

const (
	// ErasureOnRequest: DELETE /v1/applicants/{id} (GDPR art. 17), when retention allowed it.
	ErasureOnRequest ErasureRule = "data_subject_request"
	// ErasureScheduled: an earlier request, carried out when retention ended.
	ErasureScheduled ErasureRule = "scheduled_request"
	// ErasureRetention: the retention period ended (the daily run).
	ErasureRetention ErasureRule = "retention_period"
)

// ErasureReceipt is what an erasure leaves behind: enough to prove what
// was erased, when, by whom and why, and to keep counts and the audit
// chain whole, without the personal data itself.
type ErasureReceipt struct {
	ID             string          `json:"id"` // era_<ulid>
	Object         string          `json:"object"`
	ApplicantID    string          `json:"applicantId"`
	ExternalRef    *string         `json:"externalRef"`
	Environment    Environment     `json:"environment"`
	Rule           ErasureRule     `json:"rule"`
	ActorType      string          `json:"actorType"`
	ActorID        *string         `json:"actorId"`
	Reason         *string         `json:"reason"`
	ApplicantSince string          `json:"applicantCreatedAt"`
	ErasedAt       string          `json:"erasedAt"`
	Requests       []ErasedRequest `json:"requests"`
	// FieldsSHA256 is the SHA-256 of the erased applicant fields (names,
	// contact details, date of birth, country, metadata) as canonical JSON:
	// whoever still holds them can prove they were what was erased.
	FieldsSHA256 string `json:"fieldsSha256"`
	// KeyDestroyed: the applicant's data key was destroyed; false when the
	// data predates per-applicant keys (sealed under the shared data key),
	// so copies made before the erasure still hold it (see docs/personal-data.md).
	KeyDestroyed bool `json:"keyDestroyed"`
	// SharedKeyRows counts erased rows that were sealed under the shared
	// data key (before per-applicant keys): backups made before the
	// erasure still open them with the master key.
	SharedKeyRows int `json:"sharedKeyRows"`
}

// ErasedRequest is the tombstone of one KYC request.
type ErasedRequest struct {
	ID             string   `json:"id"`
	Status         string   `json:"status"`
	Decision       string   `json:"decision"`
	ReasonCodes    []string `json:"reasonCodes"`
	CreatedAt      string   `json:"createdAt"`
	DecidedAt      *string  `json:"decidedAt"`
	ImagesSHA256   []string `json:"imagesSha256"`
	LivenessFrames int      `json:"livenessFrames"`
	DocumentSHA256 *string  `json:"documentDataSha256"`
}

// ErasureDeferred is returned when retention does not yet allow the
// erasure: it is recorded and runs from NotBefore.
type ErasureDeferred struct {
	NotBefore time.Time
	Rule      string // what requires keeping the data
}

func (e *ErasureDeferred) Error() string {
	return "erasure deferred until " + FormatTime(e.NotBefore) + " (" + e.Rule + ")"
}

// ErasableFrom is when an applicant's personal data may be erased on
// request: at once in sandbox; in live, p.DecidedYears after the later of
// the latest decision of a request that was decided (approved or rejected)
// and the end of the business relationship when the integrator set one
// (AMLD art. 40 counts from the relationship's end; a relationship that
// ends after the decision keeps the record longer, one that "ended" before
// it cannot shorten it). Requests never decided (expired, cancelled,
// abandoned) keep nothing back, whatever the relationship end.
func ErasableFrom(env Environment, now time.Time, latestDecision, relationshipEnd *time.Time, p RetentionPolicy) time.Time {
	if env != Live || latestDecision == nil {
		return now
	}
	from := *latestDecision
	if relationshipEnd != nil && relationshipEnd.After(from) {
		from = *relationshipEnd
	}
	until := from.AddDate(p.DecidedYears, 0, 0)
	if until.Before(now) {
		return now
	}
	return until
}
