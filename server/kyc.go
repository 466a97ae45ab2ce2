package server

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"kycd/kyc"
	"kycd/locale"
	"kycd/store"
	"kycd/verification"
)

// kycCreatedJSON is exactly the creation record of spec §2.2; resend-link
// answers with it too, since it carries the new link.
type kycCreatedJSON struct {
	ID                string          `json:"id"`
	PublicID          string          `json:"publicId"`
	ApplicantID       string          `json:"applicantId"`
	ApplicantPublicID string          `json:"applicantPublicId"`
	Status            kyc.KYCStatus   `json:"status"`
	Decision          kyc.KYCDecision `json:"decision"`
	Environment       kyc.Environment `json:"environment"`
	PortalURL         string          `json:"portalUrl"`
	PortalExpiresAt   string          `json:"portalExpiresAt"`
	CreatedAt         string          `json:"createdAt"`
	// CallbackSecret is the organization's callback signing secret for
	// this environment, present only in the answer to the request that
	// made it: the first with a callbackUrl. It is never shown again.
	CallbackSecret string `json:"callbackSecret,omitempty"`
}

// kycJSON is the full request record: the creation record's fields
// "additionally" (spec §2.2) carry the rest.
type kycJSON struct {
	ID                   string          `json:"id"`
	PublicID             string          `json:"publicId"`
	ApplicantID          string          `json:"applicantId"`
	ApplicantPublicID    string          `json:"applicantPublicId"`
	Environment          kyc.Environment `json:"environment"`
	Status               kyc.KYCStatus   `json:"status"`
	Decision             kyc.KYCDecision `json:"decision"`
	DecisionReason       *string         `json:"decisionReason"`
	RiskScore            *float64        `json:"riskScore"`
	WorkflowType         string          `json:"workflowType"`
	CallbackURL          *string         `json:"callbackUrl"`
	RedirectURL          *string         `json:"redirectUrl"`
	ExternalRef          *string         `json:"externalRef"`
	Metadata             map[string]any  `json:"metadata"`
	Locale               *string         `json:"locale"`
	PortalURL            *string         `json:"portalUrl"`
	PortalExpiresAt      string          `json:"portalExpiresAt"`
	PortalOpenedAt       *string         `json:"portalOpenedAt"`
	AutomationDecision   *string         `json:"automationDecision"`
	AutomationConfidence *float64        `json:"automationConfidence"`
	ProcessingResult     map[string]any  `json:"processingResult"`
	ReviewerNote         *string         `json:"reviewerNote"`
	ReviewReasonCode     *string         `json:"reviewReasonCode"`
	ReviewReasonCodes    []string        `json:"reviewReasonCodes"`
	PendingReview        map[string]any  `json:"pendingReview"`
	SubmittedAt          *string         `json:"submittedAt"`
	DecidedAt            *string         `json:"decidedAt"`
	CreatedAt            string          `json:"createdAt"`
	UpdatedAt            string          `json:"updatedAt"`
	// kycd's extensions (issue 27): the attempt the evidence is on, every
	// resubmission asked for, and when the overdue event fired.
	Attempt       int                `json:"attempt"`
	Resubmissions []resubmissionJSON `json:"resubmissions"`
	OverdueAt     *string            `json:"overdueAt"`
}

func timePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := kyc.FormatTime(*t)
	return &s
}

// toKYCJSON maps a request for the API. portalUrl is shown while the link
// can be used: status link_generated, not yet expired, and a token kept
// (requests created before tokens were kept sealed have none until
// resend-link).
func (s *Server) toKYCJSON(r *kyc.KYCRequest) kycJSON {
	return kycToJSON(r, s.now(), s.kyc.PortalURL)
}

// kycToJSON is toKYCJSON for callers without a Server (Exporter): now is
// the time the link's expiry is compared with; portalURL makes the link,
// nil when the caller does not know where the portal is (no portalUrl).
func kycToJSON(r *kyc.KYCRequest, now time.Time, portalURL func(token string) string) kycJSON {
	j := kycJSON{ID: r.ID, PublicID: r.PublicID, ApplicantID: r.ApplicantID, ApplicantPublicID: r.ApplicantPublicID,
		Environment: r.Environment, Status: r.Status, Decision: r.Decision, DecisionReason: r.DecisionReason,
		RiskScore: r.RiskScore, WorkflowType: string(r.WorkflowType), CallbackURL: r.CallbackURL, RedirectURL: r.RedirectURL,
		ExternalRef: r.ExternalRef, Metadata: r.Metadata, Locale: r.Locale, PortalExpiresAt: kyc.FormatTime(r.PortalExpiresAt),
		PortalOpenedAt:     timePtr(r.PortalOpenedAt),
		AutomationDecision: r.AutomationDecision, AutomationConfidence: r.AutomationConfidence,
		ProcessingResult: r.ProcessingResult, ReviewerNote: r.ReviewerNote, ReviewReasonCode: r.ReviewReasonCode, SubmittedAt: timePtr(r.SubmittedAt),
		DecidedAt: timePtr(r.DecidedAt), CreatedAt: kyc.FormatTime(r.CreatedAt), UpdatedAt: kyc.FormatTime(r.UpdatedAt),
		Attempt: max(r.Attempt, 1), Resubmissions: toResubmissionsJSON(r.Resubmissions), OverdueAt: timePtr(r.OverdueAt)}
	if j.Metadata == nil {
		j.Metadata = map[string]any{}
	}
	j.ReviewReasonCodes = r.ReviewReasonCodes
	if j.ReviewReasonCodes == nil {
		j.ReviewReasonCodes = []string{}
	}
	if (r.Status == kyc.KYCLinkGenerated || r.Status == kyc.KYCResubmissionRequested) && r.PortalToken != "" && portalURL != nil && now.Before(r.PortalExpiresAt) {
		u := portalURL(r.PortalToken)
		j.PortalURL = &u
	}
	if p := r.PendingReview; p != nil {
		by := p.Principal()
		j.PendingReview = map[string]any{"decision": map[bool]string{true: "approve", false: "reject"}[p.Approve],
			"reviewer": p.Reviewer, "actorType": by.Type, "actorId": by.ID, "note": p.Note, "reasonCode": p.ReasonCode, "reasonCodes": pendingCodes(p), "at": kyc.FormatTime(p.At)}
	}
	return j
}

func (s *Server) toCreatedJSON(r *kyc.KYCRequest) kycCreatedJSON {
	return kycCreatedJSON{ID: r.ID, PublicID: r.PublicID, ApplicantID: r.ApplicantID, ApplicantPublicID: r.ApplicantPublicID,
		Status: r.Status, Decision: r.Decision, Environment: r.Environment, PortalURL: s.kyc.PortalURL(r.PortalToken),
		PortalExpiresAt: kyc.FormatTime(r.PortalExpiresAt), CreatedAt: kyc.FormatTime(r.CreatedAt)}
}

func actorOf(key *kyc.APIKey, typ kyc.ActorType) verification.Actor {
	id := "key_" + key.ID
	return verification.Actor{Type: typ, ID: &id}
}

// maxURLLen bounds callbackUrl and redirectUrl.
const maxURLLen = 2048

// checkURL validates an absolute http(s) URL; live requires https.
func checkURL(field string, v *string, env kyc.Environment) []kyc.FieldError {
	if v == nil {
		return nil
	}
	u, err := url.Parse(*v)
	switch {
	case len(*v) > maxURLLen:
		return []kyc.FieldError{{Field: field, Message: "must be at most 2048 characters"}}
	case err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return []kyc.FieldError{{Field: field, Message: "must be an absolute http(s) URL, e.g. https://example.com/done"}}
	case env == kyc.Live && u.Scheme != "https":
		return []kyc.FieldError{{Field: field, Message: "must use https in live"}}
	}
	return nil
}

// portalTTL reads portalTtlHours (1 to 720).
func portalTTL(o *object) (time.Duration, []kyc.FieldError) {
	n, ok := o.integer("portalTtlHours")
	if !ok {
		return 0, nil
	}
	if n < 1 || time.Duration(n)*time.Hour > verification.MaxPortalTTL {
		return 0, []kyc.FieldError{{Field: "portalTtlHours", Message: "must be a whole number of hours from 1 to 720"}}
	}
	return time.Duration(n) * time.Hour, nil
}

// handleKYCCreate handles "POST /v1/kyc-requests".
func (s *Server) handleKYCCreate(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	envErr := checkEnvironment(o, key)
	var in verification.CreateInput
	var errs []kyc.FieldError
	appID := o.str("applicantId")
	_, inlineGiven := o.raw["applicant"]
	o.seen["applicant"] = true
	switch {
	case appID != nil && inlineGiven:
		errs = append(errs, kyc.FieldError{Field: "applicantId", Message: "give either applicantId or applicant, not both"},
			kyc.FieldError{Field: "applicant", Message: "give either applicantId or applicant, not both"})
	case appID == nil && !inlineGiven:
		errs = append(errs, kyc.FieldError{Field: "applicantId", Message: "one of applicantId and applicant is required"},
			kyc.FieldError{Field: "applicant", Message: "one of applicantId and applicant is required"})
	case appID != nil:
		in.ApplicantID = *appID
	default:
		if inline := o.sub("applicant"); inline != nil {
			in.Applicant = readApplicantInput(inline)
			errs = append(errs, in.Applicant.Validate(true, s.now(), "applicant.")...)
		} else if len(*o.errs) == 0 {
			errs = append(errs, kyc.FieldError{Field: "applicant", Message: "must be an applicant object"})
		}
	}
	if wf := o.str("workflowType"); wf != nil {
		in.WorkflowType = kyc.WorkflowType(*wf)
		if !validWorkflow(in.WorkflowType) {
			errs = append(errs, kyc.FieldError{Field: "workflowType", Message: "must be standard or document_only"})
		}
	}
	in.CallbackURL, in.RedirectURL = o.str("callbackUrl"), o.str("redirectUrl")
	if cbErrs := checkURL("callbackUrl", in.CallbackURL, key.Environment); len(cbErrs) > 0 {
		errs = append(errs, cbErrs...)
	} else if in.CallbackURL != nil {
		// The request's events are delivered there: the webhook rules apply.
		s.checkTarget(r.Context(), o, "callbackUrl", *in.CallbackURL, key.Environment)
	}
	errs = append(errs, checkURL("redirectUrl", in.RedirectURL, key.Environment)...)
	if in.ExternalRef = o.str("externalRef"); in.ExternalRef != nil && (utf8.RuneCountInString(*in.ExternalRef) > kyc.MaxExternalRefLen || strings.TrimSpace(*in.ExternalRef) == "") {
		errs = append(errs, kyc.FieldError{Field: "externalRef", Message: "must be 1 to 255 characters"})
	}
	in.Metadata = o.anyObject("metadata")
	errs = append(errs, kyc.ValidateMetadata(in.Metadata)...)
	if loc := o.str("locale"); loc != nil {
		canonical, _, err := locale.Parse(*loc)
		if err != nil {
			errs = append(errs, kyc.FieldError{Field: "locale",
				Message: "must be a BCP 47 language tag of a language the portal speaks: " + strings.Join(locale.Tags(), ", ") + " (regional forms such as de-CH or pt-BR are fine)"})
		} else {
			in.Locale = &canonical
		}
	}
	ttl, ttlErrs := portalTTL(o)
	in.PortalTTL = ttl
	if err := o.check(append(errs, ttlErrs...)); err != nil {
		return err
	}
	if envErr != nil {
		return envErr
	}
	return s.commit(w, r, http.StatusCreated, func(tx *store.Tx) (any, error) {
		var secret string
		if in.CallbackURL != nil {
			cs, created, err := tx.EnsureCallbackSecret(s.secrets, key.OrganizationID, key.Environment)
			if err != nil {
				return nil, err
			}
			if created {
				secret = cs.Secret
			}
		}
		req, err := s.kyc.Create(tx, key.OrganizationID, key.Environment, actorOf(key, kyc.ActorAPIKey), in)
		if err != nil {
			return nil, err
		}
		j := s.toCreatedJSON(req)
		j.CallbackSecret = secret
		return j, nil
	})
}

func validWorkflow(w kyc.WorkflowType) bool {
	for _, v := range kyc.WorkflowTypes {
		if v == w {
			return true
		}
	}
	return false
}

// handleKYCList handles "GET /v1/kyc-requests".
func (s *Server) handleKYCList(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	p, size := q.paging()
	status := kyc.KYCStatus(q.str("status"))
	if status != "" && !status.Valid() {
		q.errs = append(q.errs, kyc.FieldError{Field: "status", Message: "must be one of " + kycStatusList})
	}
	f := store.KYCListFilter{Status: status, ReasonCode: q.str("reasonCode")}
	if t := q.str("tag"); t != "" {
		var err error
		if f.Tag, err = kyc.NormalizeTag(t); err != nil {
			q.errs = append(q.errs, kyc.FieldError{Field: "tag", Message: "must be a tag: 1 to 40 of a-z, 0-9, '-', '_', ':' and '.'"})
		}
	}
	if f.ReasonCode != "" && !reasonCodePattern.MatchString(f.ReasonCode) {
		q.errs = append(q.errs, kyc.FieldError{Field: "reasonCode", Message: "must be 1 to 64 of A-Z, 0-9 and _"})
	}
	if err := q.check(); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	list, total, err := s.store.FindKYCRequestsBy(r.Context(), key.OrganizationID, key.Environment, f, p, size)
	if err != nil {
		return err
	}
	for _, req := range list {
		if err := s.loadResubmissions(r.Context(), req); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, newPage(mapAll(list, s.toKYCJSON), p, size, total))
	return nil
}

// kycStatusList names the statuses for the list filter's error.
var kycStatusList = func() string {
	names := make([]string, len(kyc.KYCStatuses))
	for i, st := range kyc.KYCStatuses {
		names[i] = string(st)
	}
	return strings.Join(names, ", ")
}()

// findKYC loads the path's request for the key.
func (s *Server) findKYC(r *http.Request) (*kyc.KYCRequest, error) {
	key := keyFrom(r.Context())
	return s.store.FindKYCRequest(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
}

// handleKYCGet handles "GET /v1/kyc-requests/{id}".
func (s *Server) handleKYCGet(w http.ResponseWriter, r *http.Request) error {
	req, err := s.findKYC(r)
	if err != nil {
		return err
	}
	if err := s.loadResubmissions(r.Context(), req); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.toKYCJSON(req))
	return nil
}

type kycEventJSON struct {
	kyc.KYCEvent
	CreatedAt string `json:"createdAt"`
}

// handleKYCEvents handles "GET /v1/kyc-requests/{id}/events": the whole
// timeline, oldest first.
func (s *Server) handleKYCEvents(w http.ResponseWriter, r *http.Request) error {
	req, err := s.findKYC(r)
	if err != nil {
		return err
	}
	evs, err := s.store.FindKYCEvents(r.Context(), req.ID)
	if err != nil {
		return err
	}
	out := make([]kycEventJSON, len(evs))
	for i, e := range evs {
		out[i] = kycEventJSON{KYCEvent: e, CreatedAt: kyc.FormatTime(e.CreatedAt)}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}

// handleKYCScreenings handles "GET /v1/kyc-requests/{id}/screenings".
func (s *Server) handleKYCScreenings(w http.ResponseWriter, r *http.Request) error {
	req, err := s.findKYC(r)
	if err != nil {
		return err
	}
	data := req.Screenings
	if data == nil {
		data = []kyc.ListResult{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "screened": req.Screenings != nil})
	return nil
}

// kycAction runs one action on the path's request and answers with the
// full record.
func (s *Server) kycAction(w http.ResponseWriter, r *http.Request, o *object, fn func(tx *store.Tx, key *kyc.APIKey, id string) (*kyc.KYCRequest, error)) error {
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		req, err := fn(tx, key, r.PathValue("id"))
		if err != nil {
			return nil, err
		}
		if req.Attempt > 1 && req.Resubmissions == nil {
			if req.Resubmissions, err = tx.FindResubmissions(req.ID); err != nil {
				return nil, err
			}
		}
		return s.toKYCJSON(req), nil
	})
}

// readOptionalObject accepts an empty body as {}.
func readOptionalObject(w http.ResponseWriter, r *http.Request) (*object, error) {
	b, err := readBody(w, r)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		b = []byte("{}")
	}
	return parseObject(b)
}

// handleKYCCancel handles "POST /v1/kyc-requests/{id}/cancel" (optional
// body {"reason"}).
func (s *Server) handleKYCCancel(w http.ResponseWriter, r *http.Request) error {
	o, err := readOptionalObject(w, r)
	if err != nil {
		return err
	}
	reason := o.str("reason")
	var errs []kyc.FieldError
	if reason != nil && utf8.RuneCountInString(*reason) > maxNoteLen {
		errs = append(errs, kyc.FieldError{Field: "reason", Message: "must be at most 2000 characters"})
	}
	if err := o.check(errs); err != nil {
		return err
	}
	return s.kycAction(w, r, o, func(tx *store.Tx, key *kyc.APIKey, id string) (*kyc.KYCRequest, error) {
		return s.kyc.Cancel(tx, key.OrganizationID, key.Environment, id, actorOf(key, kyc.ActorAPIKey), reason)
	})
}

// handleKYCResend handles "POST /v1/kyc-requests/{id}/resend-link"
// (optional body {"portalTtlHours"}); it answers with the new link.
func (s *Server) handleKYCResend(w http.ResponseWriter, r *http.Request) error {
	o, err := readOptionalObject(w, r)
	if err != nil {
		return err
	}
	ttl, errs := portalTTL(o)
	if err := o.check(errs); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		req, err := s.kyc.ResendLink(tx, key.OrganizationID, key.Environment, r.PathValue("id"), actorOf(key, kyc.ActorAPIKey), ttl)
		if err != nil {
			return nil, err
		}
		return s.toCreatedJSON(req), nil
	})
}

var reasonCodePattern = regexp.MustCompile(`^[A-Z0-9_]{1,64}$`)

// maxNoteLen bounds reviewer notes and reasons.
const maxNoteLen = 2000

// handleKYCReview handles approve and reject: body {"note", "reviewer"?}.
func (s *Server) handleKYCReview(approve bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		o, err := readObject(w, r)
		if err != nil {
			return err
		}
		note, reviewer, code := o.str("note"), o.str("reviewer"), o.str("reasonCode")
		codes, _ := o.strList("reasonCodes")
		var errs []kyc.FieldError
		if code != nil && !reasonCodePattern.MatchString(*code) {
			errs = append(errs, kyc.FieldError{Field: "reasonCode", Message: "must be 1 to 64 of A-Z, 0-9 and _, e.g. DOCUMENT_FORGED"})
		}
		if len(codes) > kyc.MaxReasonCodes {
			errs = append(errs, kyc.FieldError{Field: "reasonCodes", Message: fmt.Sprintf("must be at most %d codes", kyc.MaxReasonCodes)})
		}
		for _, c := range codes {
			if !reasonCodePattern.MatchString(c) {
				errs = append(errs, kyc.FieldError{Field: "reasonCodes", Message: "each must be 1 to 64 of A-Z, 0-9 and _, e.g. DOCUMENT_FORGED"})
				break
			}
		}
		switch {
		case note == nil || strings.TrimSpace(*note) == "":
			errs = append(errs, kyc.FieldError{Field: "note", Message: "is required: say why"})
		case utf8.RuneCountInString(*note) > maxNoteLen:
			errs = append(errs, kyc.FieldError{Field: "note", Message: "must be at most 2000 characters"})
		}
		if reviewer != nil && (strings.TrimSpace(*reviewer) == "" || utf8.RuneCountInString(*reviewer) > 200) {
			errs = append(errs, kyc.FieldError{Field: "reviewer", Message: "must be 1 to 200 characters (the person deciding)"})
		} else if reviewer != nil {
			if r, bad := kyc.InvisibleRune(*reviewer); bad {
				errs = append(errs, kyc.FieldError{Field: "reviewer", Message: fmt.Sprintf("must not contain invisible or text-direction characters (found U+%04X)", r)})
			}
		}
		if err := o.check(errs); err != nil {
			return err
		}
		return s.kycAction(w, r, o, func(tx *store.Tx, key *kyc.APIKey, id string) (*kyc.KYCRequest, error) {
			actor := actorOf(key, kyc.ActorReviewer)
			if reviewer != nil {
				who := strings.TrimSpace(*reviewer) + " (key_" + key.ID + ")"
				actor.ID = &who
			}
			in := verification.ReviewInput{Approve: approve, Note: strings.TrimSpace(*note),
				By: kyc.Principal{Type: kyc.ActorAPIKey, ID: "key_" + key.ID}}
			if code != nil {
				in.ReasonCode = *code
			}
			in.ReasonCodes = codes
			return s.kyc.Review(tx, key.OrganizationID, key.Environment, id, in, actor)
		})
	}
}

// pendingCodes are a pending review's reason codes (a list, never null;
// reviews stored before the list carry the single code).
func pendingCodes(p *kyc.PendingReview) []string {
	switch {
	case len(p.ReasonCodes) > 0:
		return p.ReasonCodes
	case p.ReasonCode != "":
		return []string{p.ReasonCode}
	}
	return []string{}
}
