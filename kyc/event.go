package kyc

import "time"

// EventType names a lifecycle event (spec §6.2, exactly).
type EventType string

// The event types of spec §6.2.
const (
	EventKYCCreated         EventType = "svc.kyc.request.created"
	EventKYCPortalLinkReady EventType = "svc.kyc.portal_link_ready"
	EventKYCSubmitted       EventType = "svc.kyc.request.submitted"
	EventKYCProcessing      EventType = "svc.kyc.request.processing"
	EventKYCApproved        EventType = "svc.kyc.request.approved"
	EventKYCRejected        EventType = "svc.kyc.request.rejected"
	EventKYCAwaitingReview  EventType = "svc.kyc.request.awaiting_review"
	EventKYCExpired         EventType = "svc.kyc.request.expired"
	EventKYCCancelled       EventType = "svc.kyc.request.cancelled"
	EventKYCFailed          EventType = "svc.kyc.request.failed"
	// kycd's own KYC events (not in spec §6.2), named like its others:
	// a reviewer asked the applicant to redo one step; a request awaiting
	// review passed its due time (once per request).
	EventKYCResubmissionRequested EventType = "svc.kyc.request.resubmission_requested"
	EventKYCOverdue               EventType = "svc.kyc.request.overdue"
	EventAMLCompleted             EventType = "svc.aml_check.completed"
	EventAMLMatchFound            EventType = "svc.aml_check.match_found"
	EventAMLMonitoringAlert       EventType = "svc.aml_check.monitoring_alert"
	// EventAMLBatchCompleted is kycd's own (not in spec §6.2): a batch
	// screening has screened or refused every subject.
	EventAMLBatchCompleted EventType = "svc.aml_batch.completed"
	// EventAMLCaseOpened and EventAMLCaseClosed are kycd's own: a
	// confirmed match opened an AML case; the case's outcome was recorded.
	EventAMLCaseOpened EventType = "svc.aml_case.opened"
	EventAMLCaseClosed EventType = "svc.aml_case.closed"
	EventWebhookTest   EventType = "svc.webhook.test"
	// EventApplicantErased: an applicant's personal data was erased
	// (DELETE /v1/applicants/{id}, or a scheduled erasure).
	EventApplicantErased EventType = "svc.applicant.erased"
)

// EventTypes lists every event type, in the order of spec §6.2.
var EventTypes = []EventType{
	EventKYCCreated, EventKYCPortalLinkReady, EventKYCSubmitted, EventKYCProcessing, EventKYCApproved,
	EventKYCRejected, EventKYCAwaitingReview, EventKYCExpired, EventKYCCancelled, EventKYCFailed,
	EventKYCResubmissionRequested, EventKYCOverdue,
	EventAMLCompleted, EventAMLMatchFound, EventAMLMonitoringAlert, EventAMLBatchCompleted, EventAMLCaseOpened, EventAMLCaseClosed, EventWebhookTest, EventApplicantErased,
}

// Valid reports whether t is one of the event types.
func (t EventType) Valid() bool {
	for _, e := range EventTypes {
		if e == t {
			return true
		}
	}
	return false
}

// Event is one lifecycle event; Payload is the exact JSON every delivery
// of it sends.
type Event struct {
	ID             string // kev_<ulid>
	OrganizationID string
	Environment    Environment
	Type           EventType
	ResourceID     string
	Payload        []byte
	CreatedAt      time.Time
	// CallbackURL, when set, also receives the event (the callbackUrl of
	// the KYC request it is about), besides the subscribed endpoints.
	CallbackURL string
}

// WebhookEndpoint is a receiver of events in one environment.
type WebhookEndpoint struct {
	ID             string // we_<ulid>
	OrganizationID string
	Environment    Environment
	URL            string
	Description    string
	EventTypes     []EventType // empty: all
	Enabled        bool
	DisabledReason string
	DisabledAt     *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
	// DualSign: after a rotation, deliveries until PreviousSecretUntil
	// carry a second signature made with the previous secret. Off: one
	// signature, with the newest secret (spec §6.4).
	DualSign            bool
	PreviousSecretUntil *time.Time // end of the last rotation's overlap; nil when none
	// Secrets to sign with, current first; only filled for delivery and
	// at creation or rotation (the one time the API shows Secret).
	Secret         string
	PreviousSecret string
}

// Subscribed reports whether the endpoint wants events of type t.
func (e *WebhookEndpoint) Subscribed(t EventType) bool {
	if len(e.EventTypes) == 0 {
		return true
	}
	for _, s := range e.EventTypes {
		if s == t {
			return true
		}
	}
	return false
}
