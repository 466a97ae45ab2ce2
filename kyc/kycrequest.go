package kyc

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// KYCStatus is where a KYC request is in its lifecycle.
type KYCStatus string

// The KYC statuses. The transition table below is the only place that
// says which moves between them are allowed. Opening the portal link is
// not a status (spec §3.1 has none for it, and clients with a closed enum
// must never see one it lacks): it sets PortalOpenedAt and adds the
// timeline entry TimelineOpened, and the status stays link_generated.
const (
	KYCLinkGenerated  KYCStatus = "link_generated"  // created or re-issued; the applicant has not submitted
	KYCSubmitted      KYCStatus = "submitted"       // the applicant finished the portal flow
	KYCProcessing     KYCStatus = "processing"      // screenings and the decision engine run
	KYCApproved       KYCStatus = "approved"        // final
	KYCRejected       KYCStatus = "rejected"        // final
	KYCAwaitingReview KYCStatus = "awaiting_review" // a reviewer must approve or reject
	KYCExpired        KYCStatus = "expired"         // the link expired unsubmitted; resend-link reopens it
	KYCCancelled      KYCStatus = "cancelled"       // final
	KYCFailed         KYCStatus = "failed"          // processing errored for good; final
	// KYCResubmissionRequested: a reviewer asked the applicant to redo one
	// step (kycd's extension of spec §3; see resubmission.go).
	KYCResubmissionRequested KYCStatus = "resubmission_requested"
)

// KYCStatuses lists every status (OpenAPI enum, list filter).
var KYCStatuses = []KYCStatus{KYCLinkGenerated, KYCSubmitted, KYCProcessing, KYCApproved,
	KYCRejected, KYCAwaitingReview, KYCExpired, KYCCancelled, KYCFailed, KYCResubmissionRequested}

// Valid reports whether s is a status.
func (s KYCStatus) Valid() bool {
	for _, v := range KYCStatuses {
		if v == s {
			return true
		}
	}
	return false
}

// KYCDecision is the outcome of a KYC request.
type KYCDecision string

// Decisions: pending until the request is decided; none when it ended
// without a decision (expired, cancelled, failed).
const (
	DecisionPending  KYCDecision = "pending"
	DecisionApproved KYCDecision = "approved"
	DecisionRejected KYCDecision = "rejected"
	DecisionNone     KYCDecision = "none"
)

// KYCDecisions lists every decision.
var KYCDecisions = []KYCDecision{DecisionPending, DecisionApproved, DecisionRejected, DecisionNone}

// ActorType says who caused a transition.
type ActorType string

// Actors.
const (
	ActorAPIKey    ActorType = "api_key"
	ActorApplicant ActorType = "applicant"
	ActorSystem    ActorType = "system"
	ActorReviewer  ActorType = "reviewer"
)

// KYCAction names what moves a request.
type KYCAction string

// The actions of the transition table.
const (
	ActionCreate     KYCAction = "create"
	ActionResendLink KYCAction = "resend_link" // new token and expiry
	ActionSubmit     KYCAction = "submit"
	ActionProcess    KYCAction = "process" // the processing job starts
	ActionAutoDecide KYCAction = "auto_decide"
	ActionFail       KYCAction = "fail"
	ActionApprove    KYCAction = "approve" // manual
	ActionReject     KYCAction = "reject"  // manual
	ActionCancel     KYCAction = "cancel"
	ActionExpire     KYCAction = "expire"
	// ActionRequestResubmission: a reviewer asks the applicant to redo one
	// step; ActionResubmit: the applicant sent it; ActionResubmissionExpire:
	// its link ran out, and the request waits for review again.
	ActionRequestResubmission KYCAction = "request_resubmission"
	ActionResubmit            KYCAction = "resubmit"
	ActionResubmissionExpire  KYCAction = "resubmission_expire"
)

// Transition is one allowed move.
type Transition struct {
	Action KYCAction
	From   []KYCStatus // empty for create
	To     KYCStatus   // "" when the engine chooses (auto_decide)
	Event  EventType   // the §6.2 webhook it fires; "" when the engine chooses
	Actor  ActorType
}

// Transitions is the KYC state machine.
var Transitions = []Transition{
	{ActionCreate, nil, KYCLinkGenerated, EventKYCCreated, ActorAPIKey},
	{ActionResendLink, []KYCStatus{KYCLinkGenerated, KYCExpired}, KYCLinkGenerated, EventKYCPortalLinkReady, ActorAPIKey},
	{ActionSubmit, []KYCStatus{KYCLinkGenerated}, KYCSubmitted, EventKYCSubmitted, ActorApplicant},
	{ActionProcess, []KYCStatus{KYCSubmitted}, KYCProcessing, EventKYCProcessing, ActorSystem},
	{ActionAutoDecide, []KYCStatus{KYCProcessing}, "", "", ActorSystem}, // to approved, rejected or awaiting_review
	{ActionFail, []KYCStatus{KYCSubmitted, KYCProcessing}, KYCFailed, EventKYCFailed, ActorSystem},
	{ActionApprove, []KYCStatus{KYCAwaitingReview}, KYCApproved, EventKYCApproved, ActorReviewer},
	{ActionReject, []KYCStatus{KYCAwaitingReview}, KYCRejected, EventKYCRejected, ActorReviewer},
	{ActionCancel, []KYCStatus{KYCLinkGenerated}, KYCCancelled, EventKYCCancelled, ActorAPIKey},
	{ActionExpire, []KYCStatus{KYCLinkGenerated}, KYCExpired, EventKYCExpired, ActorSystem},
	// Only a request waiting for a person can be sent back to the
	// applicant: a decided one (approved, rejected) is final.
	{ActionRequestResubmission, []KYCStatus{KYCAwaitingReview}, KYCResubmissionRequested, EventKYCResubmissionRequested, ActorReviewer},
	{ActionResubmit, []KYCStatus{KYCResubmissionRequested}, KYCSubmitted, EventKYCSubmitted, ActorApplicant},
	{ActionResubmissionExpire, []KYCStatus{KYCResubmissionRequested}, KYCAwaitingReview, EventKYCAwaitingReview, ActorSystem},
}

// StatusEvent is the §6.2 event announcing that a request reached s.
func StatusEvent(s KYCStatus) EventType {
	switch s {
	case KYCApproved:
		return EventKYCApproved
	case KYCRejected:
		return EventKYCRejected
	case KYCAwaitingReview:
		return EventKYCAwaitingReview
	}
	for _, t := range Transitions {
		if t.To == s && t.Event != "" && t.Action != ActionResendLink && t.Action != ActionResubmit {
			return t.Event
		}
	}
	return ""
}

// StatusDecision is the decision a request has in status s.
func StatusDecision(s KYCStatus) KYCDecision {
	switch s {
	case KYCApproved:
		return DecisionApproved
	case KYCRejected:
		return DecisionRejected
	case KYCExpired, KYCCancelled, KYCFailed:
		return DecisionNone
	}
	return DecisionPending
}

// CheckTransition finds the transition for action from status from, and
// for auto_decide checks the engine's target. A move the table does not
// allow is INVALID_TRANSITION naming the current status.
func CheckTransition(action KYCAction, from, to KYCStatus) (Transition, error) {
	for _, t := range Transitions {
		if t.Action != action {
			continue
		}
		for _, f := range t.From {
			if f != from {
				continue
			}
			if action == ActionAutoDecide {
				if to != KYCApproved && to != KYCRejected && to != KYCAwaitingReview {
					return t, fmt.Errorf("decision engine chose %q, not approved, rejected or awaiting_review", to)
				}
				t.To, t.Event = to, StatusEvent(to)
			}
			return t, nil
		}
		return t, &Error{Code: EInvalidTransition, Message: fmt.Sprintf(
			"Cannot %s a KYC request whose status is %s.", humanAction(action), from),
			Details: []FieldError{{Field: "status", Message: "is " + string(from)}}}
	}
	return Transition{}, fmt.Errorf("unknown KYC action %q", action)
}

func humanAction(a KYCAction) string {
	switch a {
	case ActionResendLink:
		return "resend the link of"
	case ActionAutoDecide:
		return "decide"
	case ActionRequestResubmission:
		return "request a resubmission of"
	case ActionResubmit:
		return "resubmit"
	case ActionResubmissionExpire:
		return "expire the resubmission of"
	}
	return string(a)
}

// WorkflowType says what the portal asks of the applicant.
type WorkflowType string

// Workflows: standard = identity document and selfie; document_only =
// identity document without a selfie.
const (
	WorkflowStandard     WorkflowType = "standard"
	WorkflowDocumentOnly WorkflowType = "document_only"
)

// WorkflowTypes lists the workflows.
var WorkflowTypes = []WorkflowType{WorkflowStandard, WorkflowDocumentOnly}

// KYCRequest is one verification of an applicant (spec §2.2).
type KYCRequest struct {
	ID                   string
	PublicID             string
	OrganizationID       string
	Environment          Environment
	ApplicantID          string
	ApplicantPublicID    string
	Status               KYCStatus
	Decision             KYCDecision
	DecisionReason       *string
	RiskScore            *float64
	WorkflowType         WorkflowType
	CallbackURL          *string
	RedirectURL          *string
	ExternalRef          *string
	Metadata             map[string]any
	Locale               *string // BCP 47 tag the portal and its e-mail use; nil: chosen per applicant
	PortalExpiresAt      time.Time
	PortalOpenedAt       *time.Time // when the applicant first opened the current link; nil until then
	AutomationDecision   *string    // approve, reject, review: the engine's recommendation
	AutomationConfidence *float64   // [0,1]
	ProcessingResult     map[string]any
	Screenings           []ListResult // AML results of the applicant; nil until screened
	ReviewerNote         *string
	ReviewReasonCode     *string        // the decision's first reason code (the single-code API field)
	ReviewReasonCodes    []string       // every reason code of the decision, in the order given
	DocumentData         *DocumentData  // what the applicant confirmed in the portal
	PendingReview        *PendingReview // four-eyes: the first reviewer's decision
	SubmittedAt          *time.Time
	DecidedAt            *time.Time
	// Attempt is the attempt the evidence is on: 1, then one more per
	// resubmission. Resubmissions, when loaded, are every one asked for,
	// oldest first.
	Attempt       int
	Resubmissions []Resubmission
	OverdueAt     *time.Time // when svc.kyc.request.overdue fired; nil before
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// PortalToken is the link's secret: set when it was just made, and
	// when loaded while the status is link_generated (the store keeps it
	// sealed under the data key until the link can no longer be used);
	// "" for requests created before the sealed copy existed.
	PortalToken string
}

// KYCEvent is one entry of a request's timeline (append-only).
type KYCEvent struct {
	ID         string      `json:"id"`
	Type       string      `json:"type"` // a TimelineTypes entry
	FromStatus *KYCStatus  `json:"fromStatus"`
	ToStatus   KYCStatus   `json:"toStatus"`
	Decision   KYCDecision `json:"decision"`
	ActorType  ActorType   `json:"actorType"`
	ActorID    *string     `json:"actorId"`
	Reason     *string     `json:"reason"`
	CreatedAt  time.Time   `json:"-"`
}

// Timeline types that are not webhook events (§6.2 has none for them),
// named like every event type with the svc. prefix.
const (
	// TimelineOpened: the applicant opened the portal link (the first
	// time for the current link); the status stays link_generated.
	TimelineOpened = "svc.kyc.portal_link_opened"
	// TimelineFirstReview: with four-eyes review, the first reviewer's
	// decision, which waits for a second reviewer.
	TimelineFirstReview = "svc.kyc.review.first_decision"
)

// TimelineTypes lists every type of a timeline entry: the KYC event types
// of §6.2 (each also sent as a webhook) and the timeline-only ones.
var TimelineTypes = []string{string(EventKYCCreated), string(EventKYCPortalLinkReady), TimelineOpened,
	string(EventKYCSubmitted), string(EventKYCProcessing), string(EventKYCApproved), string(EventKYCRejected),
	string(EventKYCAwaitingReview), string(EventKYCExpired), string(EventKYCCancelled), string(EventKYCFailed),
	TimelineFirstReview, string(EventKYCResubmissionRequested), string(EventKYCOverdue)}

// DocumentTypes are the identity documents the portal accepts; the bool
// says whether the document has a back side to capture.
var DocumentTypes = map[string]bool{"passport": false, "id_card": true, "driving_licence": true, "residence_permit": true}

// Capture is one stored image: a document side or a selfie.
type Capture struct {
	ID           string
	RequestID    string
	Kind         string  // document or selfie
	Side         *string // front or back (documents)
	DocumentType *string
	Country      *string
	ContentType  string
	Size         int
	Width        int
	Height       int
	SHA256       string
	SourceSHA256 string
	Attempt      int     // the request's attempt it was taken in (1, then one more per resubmission)
	Method       string  // MethodCameraChallenge, MethodCameraSession or MethodUpload, as the server derives it
	SessionID    *string // the liveness session a camera_challenge selfie came from
	// DocumentSessionID is the document camera session a camera_session
	// document image was posted into (the server checked its nonce).
	DocumentSessionID *string
	UserAgent         string
	IP                string
	Meta              map[string]any // what the original file said (software, EXIF, GPS), before stripping
	CapturedAt        time.Time
	Data              []byte // only when loaded for download
}

// DocumentData is what the applicant confirms about their document in the
// portal: its number and expiry, and the MRZ lines when the camera could
// not read them.
type DocumentData struct {
	DocumentType   string `json:"documentType"`
	IssuingCountry string `json:"issuingCountry"`
	DocumentNumber string `json:"documentNumber"`
	ExpiryDate     string `json:"expiryDate"`    // YYYY-MM-DD
	MRZ            string `json:"mrz,omitempty"` // lines separated by newlines
}

// DocumentAddress is the holder's address as the engine read it from a
// document (a driving licence's PDF417 barcode: AAMVA DAG, DAH, DAI,
// DAJ, DAK, DCG). It is personal data: stored sealed under the
// applicant's key, never in processingResult, and shown to those who may
// see document details.
type DocumentAddress struct {
	Street     string `json:"street"`
	Street2    string `json:"street2,omitempty"`
	City       string `json:"city"`
	State      string `json:"state"`
	PostalCode string `json:"postalCode"`
	Country    string `json:"country"`
	// Source is what it was read from ("pdf417_aamva"), CaptureID the
	// document image.
	Source    string `json:"source"`
	CaptureID string `json:"captureId"`
}

// Reading is the address in the shape of a document reading's
// "address" (the API, report.json).
func (a *DocumentAddress) Reading() map[string]any {
	m := map[string]any{"street": a.Street, "city": a.City, "state": a.State, "postalCode": a.PostalCode, "country": a.Country}
	if a.Street2 != "" {
		m["street2"] = a.Street2
	}
	return m
}

// Lines is the address as printed on an envelope: street lines, then
// city, state and postal code, then the country.
func (a *DocumentAddress) Lines() []string {
	var out []string
	for _, l := range []string{a.Street, a.Street2} {
		if l != "" {
			out = append(out, l)
		}
	}
	region := strings.TrimSpace(a.State + " " + a.PostalCode)
	town := a.City
	switch {
	case town != "" && region != "":
		town += ", " + region
	case town == "":
		town = region
	}
	if town != "" {
		out = append(out, town)
	}
	if a.Country != "" {
		out = append(out, a.Country)
	}
	return out
}

// Validate checks the portal's document form; field names are as the
// form sends them.
func (d *DocumentData) Validate() []FieldError {
	var errs []FieldError
	if _, ok := DocumentTypes[d.DocumentType]; !ok {
		errs = append(errs, FieldError{Field: "documentType", Message: "must be passport, id_card, driving_licence or residence_permit"})
	}
	if !ValidCountry(d.IssuingCountry) {
		errs = append(errs, FieldError{Field: "issuingCountry", Message: "must be a country code such as GB"})
	}
	if n := NormalizeDocumentNumber(d.DocumentNumber); n == "" || len(n) > 30 {
		errs = append(errs, FieldError{Field: "documentNumber", Message: "must be 1 to 30 letters and digits"})
	}
	if _, ok := ParseDate(d.ExpiryDate); !ok {
		errs = append(errs, FieldError{Field: "expiryDate", Message: "must be a date YYYY-MM-DD"})
	}
	if len(d.MRZ) > 200 {
		errs = append(errs, FieldError{Field: "mrz", Message: "must be at most 3 lines of 44 characters"})
	}
	for _, r := range d.MRZ {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '<' || r == '\n' || r == '\r' || r == ' ') {
			errs = append(errs, FieldError{Field: "mrz", Message: "may hold only letters, digits, < and line breaks"})
			break
		}
	}
	return errs
}

// NormalizeDocumentNumber upper-cases a document number and drops spaces,
// dashes and MRZ fillers, so the same document compares equal however it
// was typed.
func NormalizeDocumentNumber(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
			b = append(b, c-'a'+'A')
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b = append(b, c)
		}
	}
	return string(b)
}

// PendingReview is a first reviewer's decision waiting for a second,
// different reviewer (four-eyes, live only, when the organization asks).
// By is who was authenticated when it was made; the second decision must
// come from another principal. Reviewer is the name typed in the request,
// shown to people, never compared.
type PendingReview struct {
	Approve    bool      `json:"approve"`
	Reviewer   string    `json:"reviewer"`
	By         Principal `json:"by"`
	Note       string    `json:"note"`
	ReasonCode string    `json:"reasonCode,omitempty"`
	// ReasonCodes are every code of the first decision (ReasonCode is
	// the first of them, kept for pending reviews stored before).
	ReasonCodes []string  `json:"reasonCodes,omitempty"`
	At          time.Time `json:"at"`
}

// Principal is the authenticated identity behind a request: an API key
// today (ActorAPIKey, "key_<ulid>"), a console user once the back office
// signs people in. Four-eyes review compares principals, and the audit
// log records them as actor type and id.
type Principal struct {
	Type ActorType `json:"type"`
	ID   string    `json:"id"`
}

// IsZero reports whether p names nobody.
func (p Principal) IsZero() bool { return p.ID == "" }

// legacyKeyPrincipal recovers the key of a pending review stored before
// PendingReview.By existed: its Reviewer was "<name> (key_<ulid>)" or
// "key_<ulid>".
var legacyKeyPrincipal = regexp.MustCompile(`(?:^|\()(key_[0-7][0-9A-HJKMNP-TV-Z]{25})\)?$`)

// Principal returns who made the pending decision, for reviews stored
// before By existed too (their key is read from Reviewer).
func (p *PendingReview) Principal() Principal {
	if !p.By.IsZero() {
		return p.By
	}
	if m := legacyKeyPrincipal.FindStringSubmatch(p.Reviewer); m != nil {
		return Principal{Type: ActorAPIKey, ID: m[1]}
	}
	return Principal{}
}

// Metadata is what the API and the reports show about how an image was
// captured: the client's user agent and address, and what the original
// file said about itself before its metadata was stripped.
func (c *Capture) Metadata() map[string]any {
	m := map[string]any{"userAgent": c.UserAgent, "ip": c.IP}
	for k, v := range c.Meta {
		m[k] = v
	}
	if c.DocumentSessionID != nil {
		m["documentSessionId"] = *c.DocumentSessionID // the server's record, not the page's word
	}
	return m
}
