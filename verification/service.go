// Package verification runs the KYC request lifecycle: creation with a
// portal link, the applicant's captures and submission, processing by the
// decision engine, manual review, cancellation and expiry. Every move goes
// through kyc.CheckTransition and is written with its timeline entry, its
// webhook event and (in live) its audit row in the same transaction.
package verification

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"kycd/decision"
	"kycd/invite"
	"kycd/kyc"
	"kycd/locale"
	"kycd/store"
)

// DefaultPortalTTL is how long a portal link lives unless the request
// says otherwise; MaxPortalTTL bounds portalTtlHours.
const (
	DefaultPortalTTL = 7 * 24 * time.Hour
	MaxPortalTTL     = 30 * 24 * time.Hour
)

// Service is the KYC use cases.
type Service struct {
	store     *store.Store
	engine    decision.Engine
	portalURL string
	log       *slog.Logger
}

// New returns a service. portalURL is the public base of the portal
// (links are portalURL + "/" + token).
func New(st *store.Store, engine decision.Engine, portalURL string, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if engine == nil {
		engine = decision.Manual{}
	}
	return &Service{store: st, engine: engine, portalURL: strings.TrimRight(portalURL, "/"), log: log}
}

// Actor is who asks for a change.
type Actor struct {
	Type kyc.ActorType
	ID   *string
}

// CreateInput is a validated POST /v1/kyc-requests body.
type CreateInput struct {
	ApplicantID  string              // one of ApplicantID and Applicant
	Applicant    *kyc.ApplicantInput // inline applicant, created with the request
	WorkflowType kyc.WorkflowType    // default standard
	CallbackURL  *string
	RedirectURL  *string
	ExternalRef  *string
	Metadata     map[string]any
	PortalTTL    time.Duration // 0: DefaultPortalTTL
	Locale       *string       // canonical BCP 47 tag (locale.Parse); nil: per applicant
}

// Create makes a request with a fresh portal link, fires created and
// portal_link_ready, e-mails the link when the applicant has an e-mail,
// and schedules the expiry. An archived applicant is UNPROCESSABLE; an
// inline applicant whose externalRef exists is CONFLICT (use applicantId).
func (s *Service) Create(tx *store.Tx, orgID string, env kyc.Environment, actor Actor, in CreateInput) (*kyc.KYCRequest, error) {
	var a *kyc.Applicant
	var err error
	if in.Applicant != nil {
		if a, err = tx.CreateApplicant(orgID, env, in.Applicant); err != nil {
			if ke := kyc.AsError(err); ke.Code == kyc.EConflict {
				ke.Message += " Pass its id as applicantId to verify that applicant again."
				for i := range ke.Details {
					ke.Details[i].Field = "applicant." + ke.Details[i].Field
				}
			}
			return nil, err
		}
	} else {
		if a, err = tx.FindApplicant(orgID, env, in.ApplicantID); err != nil {
			return nil, err
		}
		if a.Status == kyc.ApplicantArchived {
			return nil, &kyc.Error{Code: kyc.EUnprocessable, Message: fmt.Sprintf("Applicant %s is archived; unarchive it before creating a KYC request.", a.ID),
				Details: []kyc.FieldError{{Field: "applicantId", Message: "is archived"}}}
		}
	}
	ttl := in.PortalTTL
	if ttl == 0 {
		ttl = DefaultPortalTTL
	}
	wf := in.WorkflowType
	if wf == "" {
		wf = kyc.WorkflowStandard
	}
	r := &kyc.KYCRequest{OrganizationID: orgID, Environment: env, ApplicantID: a.ID, ApplicantPublicID: a.PublicID,
		Status: kyc.KYCLinkGenerated, Decision: kyc.DecisionPending, WorkflowType: wf, CallbackURL: in.CallbackURL,
		RedirectURL: in.RedirectURL, ExternalRef: in.ExternalRef, Metadata: in.Metadata, PortalExpiresAt: tx.Now().Add(ttl),
		Locale: in.Locale}
	r.PortalToken = store.NewSecret(32)
	if err := tx.CreateKYCRequest(r, hashToken(r.PortalToken)); err != nil {
		return nil, err
	}
	if err := s.record(tx, r, kyc.EventKYCCreated, string(kyc.EventKYCCreated), nil, actor, nil); err != nil {
		return nil, err
	}
	if err := s.linkIssued(tx, r, a, actor); err != nil {
		return nil, err
	}
	return r, nil
}

// PortalURL is the link the applicant opens.
func (s *Service) PortalURL(token string) string { return s.portalURL + "/" + token }

// linkIssued fires portal_link_ready, e-mails the link and schedules the
// expiry check at the link's expiry.
func (s *Service) linkIssued(tx *store.Tx, r *kyc.KYCRequest, a *kyc.Applicant, actor Actor) error {
	if err := s.record(tx, r, kyc.EventKYCPortalLinkReady, string(kyc.EventKYCPortalLinkReady), &r.Status, actor, nil); err != nil {
		return err
	}
	if a != nil && a.Email != nil {
		if err := s.queueLinkEmail(tx, r, a); err != nil {
			return err
		}
	}
	payload, err := json.Marshal(requestJob{RequestID: r.ID})
	if err != nil {
		return err
	}
	_, err = tx.EnqueueJob(store.NewJob{Kind: KindExpire, Payload: payload, RunAt: r.PortalExpiresAt, MaxAttempts: 5})
	return err
}

// queueLinkEmail puts the e-mail with the portal link in the outbox: in
// the request's locale, else the organization's default (the applicant's
// browser is not known yet), as text and HTML, from the organization's
// name with Reply-To its support address, and with its PNG logo inline.
func (s *Service) queueLinkEmail(tx *store.Tx, r *kyc.KYCRequest, a *kyc.Applicant) error {
	b, err := tx.FindBranding(r.OrganizationID)
	if err != nil {
		return err
	}
	ch := locale.Choice{OrgDefault: b.DefaultLocale}
	if r.Locale != nil {
		ch.Requested = *r.Locale
	}
	m, err := invite.Compose(invite.Input{Branding: b, Catalog: locale.Match(ch), FirstName: a.FirstName,
		URL: s.PortalURL(r.PortalToken), ExpiresAt: r.PortalExpiresAt})
	if err != nil {
		return fmt.Errorf("compose link e-mail: %w", err)
	}
	e := store.Email{To: *a.Email, Subject: m.Subject, Body: m.Text, HTML: m.HTML, FromName: b.Shown(), ReplyTo: b.SupportEmail}
	if m.InlineLogo {
		e.LogoSHA256 = b.Logo.SHA256
	}
	return tx.QueueEmailMessage(r.OrganizationID, e)
}

// Cancel ends a request before submission.
func (s *Service) Cancel(tx *store.Tx, orgID string, env kyc.Environment, id string, actor Actor, reason *string) (*kyc.KYCRequest, error) {
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	return r, s.move(tx, r, kyc.ActionCancel, "", actor, reason)
}

// ResendLink issues a new token and expiry (the old link stops working)
// and sends it again; an expired request is reopened. The new link has not
// been opened, so PortalOpenedAt is cleared (the timeline keeps the
// earlier openings).
func (s *Service) ResendLink(tx *store.Tx, orgID string, env kyc.Environment, id string, actor Actor, ttl time.Duration) (*kyc.KYCRequest, error) {
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	if _, err := kyc.CheckTransition(kyc.ActionResendLink, r.Status, ""); err != nil {
		return nil, err
	}
	if ttl == 0 {
		ttl = DefaultPortalTTL
	}
	r.PortalToken, r.PortalExpiresAt, r.PortalOpenedAt = store.NewSecret(32), tx.Now().Add(ttl), nil
	if err := tx.SetPortalToken(r, hashToken(r.PortalToken)); err != nil {
		return nil, err
	}
	if r.Status != kyc.KYCLinkGenerated {
		if err := s.move(tx, r, kyc.ActionResendLink, "", actor, nil); err != nil {
			return nil, err
		}
	} else if err := tx.SaveKYCRequest(r); err != nil {
		return nil, err
	}
	a, err := tx.FindApplicant(orgID, env, r.ApplicantID)
	if err != nil {
		return nil, err
	}
	return r, s.linkIssued(tx, r, a, actor)
}

// ReviewInput is a reviewer's decision.
type ReviewInput struct {
	Approve    bool
	Note       string
	ReasonCode string // optional, e.g. DOCUMENT_FORGED
	// ReasonCodes are more codes (after ReasonCode, duplicates dropped):
	// each must be built in or one the organization added to the
	// environment's list.
	ReasonCodes []string
	// By is who is authenticated: the API key (later, the console user).
	// Four-eyes compares it, never the typed reviewer name.
	By kyc.Principal
}

// Review records a reviewer's decision on a request awaiting review. With
// four-eyes on (live only), the first decision waits in PendingReview and
// a second reviewer making the same decision under a different principal
// (another API key; later another console user) makes it final; the same
// principal again, whatever name it types, or a different decision, is
// CONFLICT.
func (s *Service) Review(tx *store.Tx, orgID string, env kyc.Environment, id string, in ReviewInput, actor Actor) (*kyc.KYCRequest, error) {
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	action := kyc.ActionReject
	if in.Approve {
		action = kyc.ActionApprove
	}
	if _, err := kyc.CheckTransition(action, r.Status, ""); err != nil {
		return nil, err
	}
	codes, err := checkReasonCodes(tx, orgID, env, in)
	if err != nil {
		return nil, err
	}
	if err := checkClaim(tx, r, actor); err != nil {
		return nil, err
	}
	if err := checkEscalation(tx, r, actor); err != nil {
		return nil, err
	}
	// The decision (first or final) ends the decider's claim, so that a
	// second reviewer can take the case.
	if err := tx.DeleteClaim(r.ID); err != nil {
		return nil, err
	}
	settings, err := tx.FindOrgSettings(orgID)
	if err != nil {
		return nil, err
	}
	who := ""
	if actor.ID != nil {
		who = *actor.ID
	}
	note := in.Note
	if settings.FourEyes && env == kyc.Live {
		if in.By.IsZero() {
			return nil, errors.New("four-eyes review: the decision carries no authenticated principal")
		}
		p := r.PendingReview
		switch {
		case p == nil:
			r.PendingReview = &kyc.PendingReview{Approve: in.Approve, Reviewer: who, By: in.By, Note: in.Note, ReasonCode: first(codes),
				ReasonCodes: codes, At: tx.Now()}
			if err := tx.SaveKYCRequest(r); err != nil {
				return nil, err
			}
			reason := "First review (" + string(action) + "), waiting for a second reviewer: " + in.Note
			if err := s.record(tx, r, "", kyc.TimelineFirstReview, &r.Status, actor, &reason); err != nil {
				return nil, err
			}
			return r, sandboxReviewAudit(tx, r, actor, kyc.TimelineFirstReview, reason)
		case p.Principal() == in.By || p.Principal().IsZero():
			// A pending review whose principal cannot be told (none
			// recorded, none recoverable) is treated as the same one: the
			// rule must fail closed.
			return nil, &kyc.Error{Code: kyc.EConflict, Message: fmt.Sprintf(
				"Four-eyes review: the first decision was made by this same %s (%s); the second must come from another person (a different API key or back-office user). The reviewer name does not count.",
				principalKind(in.By), in.By.ID)}
		case p.Approve != in.Approve:
			return nil, kyc.Errorf(kyc.EConflict, "Four-eyes review: the first reviewer (%s) chose to %s; both reviewers must agree. Discuss and have one of them decide again.", p.Reviewer, map[bool]string{true: "approve", false: "reject"}[p.Approve])
		}
		note = p.Note + " / confirmed by " + who + ": " + in.Note
		if len(codes) == 0 {
			// The second reviewer confirms the first one's codes.
			codes = p.ReasonCodes
			if len(codes) == 0 && p.ReasonCode != "" {
				codes = []string{p.ReasonCode}
			}
		}
		r.PendingReview = nil
	}
	r.ReviewerNote, r.DecisionReason = &note, &note
	if len(codes) > 0 {
		r.ReviewReasonCodes = codes
		r.ReviewReasonCode = &codes[0]
	}
	if err := s.move(tx, r, action, "", actor, &note); err != nil {
		return nil, err
	}
	return r, sandboxReviewAudit(tx, r, actor, string(kyc.StatusEvent(r.Status)), note)
}

// move applies one transition: status and decision, the timeline entry,
// the webhook event and, in live, the audit row.
func (s *Service) move(tx *store.Tx, r *kyc.KYCRequest, action kyc.KYCAction, to kyc.KYCStatus, actor Actor, reason *string) error {
	t, err := kyc.CheckTransition(action, r.Status, to)
	if err != nil {
		return err
	}
	from := r.Status
	r.Status, r.Decision = t.To, kyc.StatusDecision(t.To)
	if r.Decision == kyc.DecisionApproved || r.Decision == kyc.DecisionRejected {
		now := tx.Now()
		r.DecidedAt = &now
	}
	if t.To == kyc.KYCSubmitted {
		now := tx.Now()
		r.SubmittedAt = &now
	}
	if err := tx.SaveKYCRequest(r); err != nil {
		return err
	}
	if err := s.record(tx, r, t.Event, string(t.Event), &from, actor, reason); err != nil {
		return err
	}
	if t.To == kyc.KYCAwaitingReview && from != kyc.KYCAwaitingReview {
		return s.assignInTurn(tx, r)
	}
	return nil
}

// record writes the timeline entry, the webhook event (when typ is one)
// and the audit row, for the request as it now is.
func (s *Service) record(tx *store.Tx, r *kyc.KYCRequest, typ kyc.EventType, timelineType string, from *kyc.KYCStatus, actor Actor, reason *string) error {
	return s.recordWith(tx, r, typ, timelineType, from, actor, reason, nil)
}

// recordWith is record whose webhook body also carries extra's fields
// (kycd's own events: the resubmission asked for, the due time passed).
func (s *Service) recordWith(tx *store.Tx, r *kyc.KYCRequest, typ kyc.EventType, timelineType string, from *kyc.KYCStatus, actor Actor,
	reason *string, extra map[string]any) error {
	if err := tx.AppendKYCEvent(r.ID, &kyc.KYCEvent{Type: timelineType, FromStatus: from, ToStatus: r.Status,
		Decision: r.Decision, ActorType: actor.Type, ActorID: actor.ID, Reason: reason}); err != nil {
		return err
	}
	if typ != "" {
		ev := tx.NewEvent(r.OrganizationID, r.Environment, typ, r.ID)
		fields := map[string]any{
			"eventId": ev.ID, "eventType": typ, "resourceId": r.ID, "publicId": r.PublicID, "applicantId": r.ApplicantID,
			"applicantPublicId": r.ApplicantPublicID, "status": r.Status, "decision": r.Decision,
			"decisionReason": r.DecisionReason, "riskScore": r.RiskScore, "organizationId": r.OrganizationID,
			"environment": r.Environment, "actorType": actor.Type, "createdAt": kyc.FormatTime(ev.CreatedAt),
			"reviewReasonCodes": orNoCodes(r.ReviewReasonCodes),
		}
		for k, v := range extra {
			fields[k] = v
		}
		body, err := json.Marshal(fields)
		if err != nil {
			return fmt.Errorf("encode event: %w", err)
		}
		ev.Payload = body
		if r.CallbackURL != nil {
			ev.CallbackURL = *r.CallbackURL // the request's own receiver gets every event of it
		}
		if _, err := tx.RecordEvent(ev, ""); err != nil {
			return err
		}
	}
	// Both environments: the audit log records every change by any
	// principal (issue 23 item 13); the page filters by environment.
	to := string(r.Status)
	var fromS *string
	if from != nil {
		f := string(*from)
		fromS = &f
	}
	return tx.AppendAudit(store.AuditEntry{OrganizationID: r.OrganizationID, Environment: r.Environment,
		ResourceType: "kyc_request", ResourceID: r.ID, Action: timelineType, ActorType: actor.Type, ActorID: actor.ID,
		FromStatus: fromS, ToStatus: &to, Reason: reason})
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// principalKind names a principal's kind for error messages.
func principalKind(p kyc.Principal) string {
	if p.Type == kyc.ActorUser {
		return "back-office user"
	}
	return "API key"
}

func first(codes []string) string {
	if len(codes) == 0 {
		return ""
	}
	return codes[0]
}

// checkReasonCodes returns a decision's codes, ReasonCode first and each
// once, refusing more than kyc.MaxReasonCodes and any code that is
// neither built in nor on the organization's list for the environment.
func checkReasonCodes(tx *store.Tx, orgID string, env kyc.Environment, in ReviewInput) ([]string, error) {
	var codes []string
	for _, c := range append([]string{in.ReasonCode}, in.ReasonCodes...) {
		if c != "" && !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	if len(codes) > kyc.MaxReasonCodes {
		return nil, kyc.Invalid(kyc.FieldError{Field: "reasonCodes", Message: fmt.Sprintf("must be at most %d codes", kyc.MaxReasonCodes)})
	}
	var errs []kyc.FieldError
	for _, c := range codes {
		if !kyc.ValidReasonCodeShape(c) {
			errs = append(errs, kyc.FieldError{Field: "reasonCodes", Message: "must be 1 to 64 of A-Z, 0-9 and _, e.g. DOCUMENT_FORGED"})
			continue
		}
		if kyc.BuiltInReasonCode(c) {
			continue
		}
		ok, err := tx.HasReasonCode(orgID, env, c)
		if err != nil {
			return nil, err
		}
		if !ok {
			errs = append(errs, kyc.FieldError{Field: "reasonCodes", Message: c + " is not a reason code of this environment: add it first (POST /v1/reason-codes, or the console's settings)"})
		}
	}
	if len(errs) > 0 {
		return nil, kyc.Invalid(errs...)
	}
	return codes, nil
}

// orNoCodes is codes, or an empty list (never null in JSON).
func orNoCodes(codes []string) []string {
	if codes == nil {
		return []string{}
	}
	return codes
}
