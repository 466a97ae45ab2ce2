package kyc

import "time"

// MaxBatchSubjects bounds one batch screening.
const MaxBatchSubjects = 10000

// AMLBatchStatus is where a batch screening is.
type AMLBatchStatus string

// Batch states: stored and waiting for the job; being screened; every row
// screened or refused.
const (
	AMLBatchQueued    AMLBatchStatus = "queued"
	AMLBatchRunning   AMLBatchStatus = "running"
	AMLBatchCompleted AMLBatchStatus = "completed"
)

// AMLBatchRowStatus is where one subject of a batch is.
type AMLBatchRowStatus string

// Row states: waiting; screened (CheckID is the check created); refused at
// validation (Errors say why; nothing was screened).
const (
	AMLRowPending  AMLBatchRowStatus = "pending"
	AMLRowScreened AMLBatchRowStatus = "screened"
	AMLRowFailed   AMLBatchRowStatus = "failed"
)

// AMLBatch is a batch screening of many subjects (POST /v1/aml-checks/batch).
type AMLBatch struct {
	ID               string // amb_<ulid>
	OrganizationID   string
	Environment      Environment
	Status           AMLBatchStatus
	Monitoring       bool
	Total            int
	Screened         int
	Failed           int
	PotentialMatches int
	CreatedAt        time.Time
	UpdatedAt        time.Time
	CompletedAt      *time.Time
}

// AMLBatchSubject is one subject of a batch, as sent.
type AMLBatchSubject struct {
	FirstName   *string `json:"firstName"`
	LastName    *string `json:"lastName"`
	DOB         *string `json:"dob"`
	Country     *string `json:"country"`
	ExternalRef *string `json:"externalRef"`
}

// AMLBatchRow is one subject of a batch with its outcome; the check's
// figures are read with it when it was screened.
type AMLBatchRow struct {
	Index        int
	Subject      AMLBatchSubject
	Status       AMLBatchRowStatus
	CheckID      *string
	Errors       []FieldError
	CheckStatus  *AMLStatus
	RiskLevel    *RiskLevel
	MatchCount   *int
	ReviewStatus *AMLReviewStatus
}
