// Package report builds the compliance reports of KYC requests and AML
// checks: a versioned JSON document and an A4 PDF with the same content,
// for a compliance officer to file and an auditor to read years later.
package report

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"kycd/decision"
	"kycd/kyc"
	"kycd/store"
)

// KYCSchemaVersion names the shape of KYCReport; a change of shape gets a
// new version (the OpenAPI description documents each).
const KYCSchemaVersion = "kyc-report/1"

// KYCReport is everything a KYC request's report shows.
type KYCReport struct {
	SchemaVersion string       `json:"schemaVersion"`
	GeneratedAt   string       `json:"generatedAt"`
	Organization  Organization `json:"organization"`
	Environment   string       `json:"environment"`
	Sandbox       bool         `json:"sandbox"` // sandbox makes no real decisions; the PDF says so on every page
	// PersonalData is how the report prints personal data: the
	// organization's reportPersonalData (personal.go).
	PersonalData kyc.PersonalData  `json:"personalData"`
	Request      RequestPart       `json:"request"`
	Applicant    ApplicantPart     `json:"applicant"`
	Automation   AutomationPart    `json:"automation"`
	DocumentData *kyc.DocumentData `json:"documentData"`
	Captures     []CapturePart     `json:"captures"`
	// LivenessSessions are the selfie's camera sessions with their
	// evidence (liveness.go).
	LivenessSessions []LivenessPart `json:"livenessSessions"`
	// Resubmissions are the steps a reviewer asked the applicant to redo,
	// each with the decision the earlier attempt had; captures and
	// liveness sessions carry their attempt, so both attempts show.
	Resubmissions []ResubmissionPart `json:"resubmissions"`
	Screenings    []kyc.ListResult   `json:"screenings"`
	Signals       []any              `json:"signals"`
	Reasons       []any              `json:"reasons"`
	Timeline      []TimelinePart     `json:"timeline"`
	ReviewerNotes []ReviewerNote     `json:"reviewerNotes"`
	// ContentSHA256 is the SHA-256 of this JSON document with this field
	// empty, so a filed copy can be checked against its hash.
	ContentSHA256 string `json:"contentSha256"`

	// Thumbnails are the images for the PDF (not in the JSON).
	Thumbnails map[string][]byte `json:"-"`
}

// Organization names who the report is for.
type Organization struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// RequestPart is the request's identity and outcome.
type RequestPart struct {
	ID              string  `json:"id"`
	PublicID        string  `json:"publicId"`
	Status          string  `json:"status"`
	Decision        string  `json:"decision"`
	DecisionReason  *string `json:"decisionReason"`
	WorkflowType    string  `json:"workflowType"`
	ExternalRef     *string `json:"externalRef"`
	CreatedAt       string  `json:"createdAt"`
	SubmittedAt     *string `json:"submittedAt"`
	DecidedAt       *string `json:"decidedAt"`
	PortalExpiresAt string  `json:"portalExpiresAt"`
	PortalOpenedAt  *string `json:"portalOpenedAt"` // when the applicant first opened the current link
	Attempt         int     `json:"attempt"`        // the attempt the evidence is on: 1, then one more per resubmission
}

// ResubmissionPart is one resubmission asked for.
type ResubmissionPart struct {
	ID                      string   `json:"id"`
	Attempt                 int      `json:"attempt"`
	Step                    string   `json:"step"`
	Message                 string   `json:"message"`
	Status                  string   `json:"status"`
	RequestedBy             string   `json:"requestedBy"` // usr_<ulid> or key_<ulid>
	By                      *Person  `json:"by"`
	PriorAutomationDecision *string  `json:"priorAutomationDecision"`
	PriorDecisionReason     *string  `json:"priorDecisionReason"`
	PriorRiskScore          *float64 `json:"priorRiskScore"`
	PriorReasonCodes        []string `json:"priorReasonCodes"`
	RequestedAt             string   `json:"requestedAt"`
	ExpiresAt               string   `json:"expiresAt"`
	ClosedAt                *string  `json:"closedAt"`
}

// ApplicantPart is the applicant as recorded.
type ApplicantPart struct {
	ID          string  `json:"id"`
	PublicID    string  `json:"publicId"`
	FirstName   string  `json:"firstName"`
	LastName    string  `json:"lastName"`
	Email       *string `json:"email"`
	Phone       *string `json:"phone"`
	DOB         *string `json:"dob"`
	Country     *string `json:"country"`
	ExternalRef *string `json:"externalRef"`
}

// AutomationPart is what the decision engine concluded and with what.
type AutomationPart struct {
	Decision      *string  `json:"decision"`
	Confidence    *float64 `json:"confidence"`
	RiskScore     *float64 `json:"riskScore"`
	Engine        *string  `json:"engine"`
	EngineVersion *string  `json:"engineVersion"`
	PolicyVersion *string  `json:"policyVersion"`
}

// CapturePart describes one image (the PDF shows its thumbnail).
type CapturePart struct {
	ID           string         `json:"id"`
	Kind         string         `json:"kind"`
	Side         *string        `json:"side"`
	DocumentType *string        `json:"documentType"`
	Country      *string        `json:"country"`
	ContentType  string         `json:"contentType"`
	Width        int            `json:"width"`
	Height       int            `json:"height"`
	Size         int            `json:"size"`
	SHA256       string         `json:"sha256"`
	CapturedAt   string         `json:"capturedAt"`
	Attempt      int            `json:"attempt"` // the request's attempt it was taken in
	Method       string         `json:"captureMethod"`
	SessionID    *string        `json:"livenessSessionId"`
	Metadata     map[string]any `json:"captureMetadata"`
	// Reading is what the engine read from a document image when it
	// decided: the raw MRZ lines or barcode text, their confidence, the
	// fields taken (decision.Readings); absent when nothing was read.
	Reading map[string]any `json:"reading,omitempty"`
}

// TimelinePart is one lifecycle event.
type TimelinePart struct {
	Type       string  `json:"type"`
	FromStatus *string `json:"fromStatus"`
	ToStatus   string  `json:"toStatus"`
	Decision   string  `json:"decision"`
	ActorType  string  `json:"actorType"`
	ActorID    *string `json:"actorId"`
	// Actor names the user or API key behind ActorID (null for the
	// applicant and the system).
	Actor  *Person `json:"actor"`
	Reason *string `json:"reason"`
	At     string  `json:"at"`
}

// ReviewerNote is a reviewer's decision with their note.
type ReviewerNote struct {
	Reviewer string `json:"reviewer"` // as recorded: usr_<ulid>, key_<ulid> or "<name> (key_<ulid>)"
	// By names the reviewer: display name and e-mail, or the key.
	By         *Person `json:"by"`
	Decision   string  `json:"decision"`
	Note       string  `json:"note"`
	ReasonCode *string `json:"reasonCode"`
	// ReasonCodes are every code of the decision (ReasonCode the first).
	ReasonCodes []string `json:"reasonCodes"`
	At          string   `json:"at"`
}

// BuildKYC gathers a request's report from the store. The request is
// looked up with the caller's organization and environment, so the usual
// NOT_FOUND and wrong_environment errors apply.
func BuildKYC(ctx context.Context, st *store.Store, orgID string, env kyc.Environment, id string, now time.Time) (*KYCReport, error) {
	r, err := st.FindKYCRequest(ctx, orgID, env, id)
	if err != nil {
		return nil, err
	}
	a, err := st.FindApplicant(ctx, orgID, env, r.ApplicantID)
	if err != nil {
		return nil, err
	}
	org, err := findOrg(ctx, st, orgID)
	if err != nil {
		return nil, err
	}
	caps, err := st.FindCaptures(ctx, r.ID, "")
	if err != nil {
		return nil, err
	}
	events, err := st.FindKYCEvents(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	sessions, err := st.FindLivenessSessions(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	set, err := st.FindOrgSettings(ctx, orgID)
	if err != nil {
		return nil, err
	}
	resubs, err := st.FindResubmissions(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	rep := &KYCReport{
		SchemaVersion: KYCSchemaVersion, GeneratedAt: kyc.FormatTime(now), Organization: *org, PersonalData: kyc.PersonalDataFull,
		Environment: string(r.Environment), Sandbox: r.Environment == kyc.Sandbox,
		Request: RequestPart{ID: r.ID, PublicID: r.PublicID, Status: string(r.Status), Decision: string(r.Decision),
			DecisionReason: r.DecisionReason, WorkflowType: string(r.WorkflowType), ExternalRef: r.ExternalRef,
			CreatedAt: kyc.FormatTime(r.CreatedAt), SubmittedAt: fmtTime(r.SubmittedAt), DecidedAt: fmtTime(r.DecidedAt),
			PortalExpiresAt: kyc.FormatTime(r.PortalExpiresAt), PortalOpenedAt: fmtTime(r.PortalOpenedAt), Attempt: max(r.Attempt, 1)},
		Applicant: ApplicantPart{ID: a.ID, PublicID: a.PublicID, FirstName: a.FirstName, LastName: a.LastName, Email: a.Email,
			Phone: a.Phone, DOB: a.DOB, Country: a.Country, ExternalRef: a.ExternalRef},
		Automation:       AutomationPart{Decision: r.AutomationDecision, Confidence: r.AutomationConfidence, RiskScore: r.RiskScore},
		DocumentData:     r.DocumentData,
		Captures:         []CapturePart{},
		LivenessSessions: livenessParts(sessions),
		Resubmissions:    []ResubmissionPart{},
		Screenings:       r.Screenings,
		Signals:          []any{},
		Reasons:          []any{},
		Timeline:         []TimelinePart{},
		ReviewerNotes:    []ReviewerNote{},
		Thumbnails:       map[string][]byte{},
	}
	if rep.Screenings == nil {
		rep.Screenings = []kyc.ListResult{}
	}
	if pr := r.ProcessingResult; pr != nil {
		rep.Automation.Engine = str(pr["engine"])
		rep.Automation.EngineVersion = str(pr["engineVersion"])
		rep.Automation.PolicyVersion = str(pr["policyVersion"])
		if s, ok := pr["signals"].([]any); ok {
			rep.Signals = s
		}
		if s, ok := pr["reasons"].([]any); ok {
			rep.Reasons = s
		}
	}
	readings := decision.Readings(r.ProcessingResult)
	// The address read from a licence is kept sealed, apart from
	// processingResult: it joins its image's reading; a masked report
	// leaves it out (maskPersonalData).
	addr, err := st.FindAddressRead(ctx, r)
	if err != nil {
		return nil, err
	}
	decision.JoinAddress(readings, addr)
	for _, c := range caps {
		full, err := st.FindCaptureData(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		meta := c.Metadata()
		rep.Captures = append(rep.Captures, CapturePart{ID: c.ID, Kind: c.Kind, Side: c.Side, DocumentType: c.DocumentType,
			Country: c.Country, ContentType: c.ContentType, Width: c.Width, Height: c.Height, Size: c.Size, SHA256: c.SHA256,
			CapturedAt: kyc.FormatTime(c.CapturedAt), Attempt: max(c.Attempt, 1), Method: c.Method, SessionID: c.SessionID, Metadata: meta, Reading: readings[c.ID]})
		rep.Thumbnails[c.ID] = full.Data
	}
	pp := newPeople(ctx, st, orgID)
	for _, rs := range resubs {
		codes := rs.PriorReasonCodes
		if codes == nil {
			codes = []string{}
		}
		part := ResubmissionPart{ID: rs.ID, Attempt: rs.Attempt, Step: string(rs.Step), Message: rs.Message, Status: string(rs.State),
			RequestedBy: rs.By.ID, PriorAutomationDecision: rs.PriorAutomationDecision, PriorDecisionReason: rs.PriorDecisionReason,
			PriorRiskScore: rs.PriorRiskScore, PriorReasonCodes: codes, RequestedAt: kyc.FormatTime(rs.CreatedAt),
			ExpiresAt: kyc.FormatTime(rs.ExpiresAt), ClosedAt: fmtTime(rs.ClosedAt)}
		if rs.By.ID != "" {
			if part.By, err = pp.find(rs.By.ID); err != nil {
				return nil, err
			}
		}
		rep.Resubmissions = append(rep.Resubmissions, part)
	}
	for _, e := range events {
		t := TimelinePart{Type: e.Type, ToStatus: string(e.ToStatus), Decision: string(e.Decision), ActorType: string(e.ActorType),
			ActorID: e.ActorID, Reason: e.Reason, At: kyc.FormatTime(e.CreatedAt)}
		if e.ActorID != nil {
			if t.Actor, err = pp.find(*e.ActorID); err != nil {
				return nil, err
			}
		}
		if e.FromStatus != nil {
			f := string(*e.FromStatus)
			t.FromStatus = &f
		}
		rep.Timeline = append(rep.Timeline, t)
		if e.ActorType == kyc.ActorReviewer && e.Reason != nil {
			who := "reviewer"
			if e.ActorID != nil {
				who = *e.ActorID
			}
			note := ReviewerNote{Reviewer: who, By: t.Actor, Decision: string(e.ToStatus), Note: *e.Reason, At: kyc.FormatTime(e.CreatedAt),
				ReasonCodes: []string{}}
			if e.Type != string(kyc.EventKYCApproved) && e.Type != string(kyc.EventKYCRejected) {
				note.Decision = e.Type
			}
			if e.ToStatus == r.Status {
				note.ReasonCode = r.ReviewReasonCode
				if r.ReviewReasonCodes != nil {
					note.ReasonCodes = r.ReviewReasonCodes
				}
			}
			rep.ReviewerNotes = append(rep.ReviewerNotes, note)
		}
	}
	if set.ReportPersonalData == kyc.PersonalDataMasked {
		rep.maskPersonalData()
	}
	return rep, rep.seal()
}

// seal computes ContentSHA256 over the JSON with the field empty.
func (rep *KYCReport) seal() error {
	rep.ContentSHA256 = ""
	b, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	sum := sha256.Sum256(b)
	rep.ContentSHA256 = hex.EncodeToString(sum[:])
	return nil
}

func findOrg(ctx context.Context, st *store.Store, orgID string) (*Organization, error) {
	orgs, err := st.FindOrganizations(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range orgs {
		if o.ID == orgID {
			return &Organization{ID: o.ID, Name: o.Name}, nil
		}
	}
	return nil, kyc.Errorf(kyc.ENotFound, "Organization %s not found.", orgID)
}

func fmtTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := kyc.FormatTime(*t)
	return &s
}

func str(v any) *string {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return &s
}
