package console

import (
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"kycd/kyc"
	"kycd/store"
	"kycd/verification"
)

type casePage struct {
	Req       *kyc.KYCRequest
	Applicant *kyc.Applicant
	Personal  bool // the role may see personal data beyond names
	Now       time.Time
	Claim     *store.Claim
	MyClaim   bool
	CanDecide bool   // awaiting review, the role decides, nobody else holds it
	Blocked   string // why this user cannot decide now, when the role could
	FourEyes  bool   // this decision needs two reviewers
	Pending   *pendingView
	Codes     []reasonChoice // the environment's decision codes, built in and the organization's
	Decided   []reasonChoice // the decision's codes, in words
	Notes     *notesView
	Documents []captureView
	Selfies   []captureView
	Others    []captureView
	Compare   []compareRow
	// Differences are the fields where the document and the applicant
	// disagree, for the line above the table.
	Differences []string
	// Faces are the document portrait and the selfie cropped alike (nil:
	// no face compared; the page shows the whole images).
	Faces      []faceView
	Readings   []readingView
	FaceMatch  *faceMatchView
	Signals    []signalView
	Reasons    []reasonView
	Screenings []kyc.ListResult
	Duplicates []duplicateView
	Timeline   []timelineView
	Sandbox    *sandboxView
	Form       struct {
		Decision, Code, Note, Step, Message string
		More                                []string // the further codes ticked
	}
	Desk *deskView
	// Resubmission: every one asked for, the steps this request can
	// redo, and how many more it may have.
	Resubmissions []kyc.Resubmission
	Steps         []stepOption
	RedoLeft      int
	// Escalation: the case waits for a senior reviewer; CanEscalate and
	// CanDeescalate offer the forms.
	Escalation    *store.Escalation
	CanEscalate   bool
	CanDeescalate bool
}

type pendingView struct {
	Approve  bool
	Reviewer string
	Note     string
	Code     string
	Codes    []string
	At       time.Time
	Mine     bool
}

// handleCase handles "GET /console/{env}/cases/{id}": everything a
// reviewer needs to decide one request, and the decision form.
func (c *console) handleCase(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	org, e := sess.User.OrganizationID, env(r)
	req, err := c.store.FindKYCRequest(r.Context(), org, e, r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := c.store.RecordAccess(r.Context(), org, e, "kyc_request", req.ID, store.AccessCaseViewed, ""); err != nil {
		return err
	}
	a, err := c.store.FindApplicant(r.Context(), org, e, req.ApplicantID)
	if err != nil {
		return err
	}
	now := c.now()
	claim, err := c.store.FindClaim(r.Context(), req.ID, now)
	if err != nil {
		return err
	}
	names, err := c.userNames(r, org)
	if err != nil {
		return err
	}
	settings, err := c.store.FindOrgSettings(r.Context(), org)
	if err != nil {
		return err
	}
	d := &casePage{Req: req, Applicant: a, Personal: sess.User.Can(kyc.PermPersonalData), Now: now, Claim: claim,
		FourEyes: settings.FourEyes && e == kyc.Live}
	d.MyClaim = claim != nil && claim.UserID == sess.User.ID
	if d.Desk, err = c.desk(r, org, e, req, settings.SLA(e), now); err != nil {
		return err
	}
	if p := req.PendingReview; p != nil {
		d.Pending = &pendingView{Approve: p.Approve, Reviewer: actorName(names, &p.Reviewer), Note: p.Note, Code: p.ReasonCode, Codes: p.ReasonCodes, At: p.At,
			Mine: p.Reviewer == sess.User.ID}
	}
	if d.Escalation, err = c.store.FindEscalation(r.Context(), req.ID); err != nil {
		return err
	}
	awaiting := req.Status == kyc.KYCAwaitingReview
	d.CanEscalate = awaiting && d.Escalation == nil && sess.User.Can(kyc.PermDecide)
	d.CanDeescalate = awaiting && d.Escalation != nil && sess.User.Can(kyc.PermSenior)
	if awaiting && sess.User.Can(kyc.PermDecide) {
		switch {
		case d.Escalation != nil && !sess.User.Can(kyc.PermSenior):
			d.Blocked = "This case is escalated to a senior reviewer; only a senior reviewer or an admin can decide it."
		case claim != nil && !d.MyClaim:
			d.Blocked = claim.UserName + " is working on this case (claimed until " + claim.ExpiresAt.UTC().Format("15:04") + " UTC)."
		case d.Pending != nil && d.Pending.Mine:
			d.Blocked = "You made the first decision. A second, different reviewer must confirm it."
		default:
			d.CanDecide = true
		}
	}
	if fe := formError(r); fe != nil {
		d.Form.Decision, d.Form.Code, d.Form.Note = r.PostFormValue("decision"), r.PostFormValue("reasonCode"), r.PostFormValue("note")
		d.Form.More = r.PostForm["reasonCodes"]
		d.Form.Step, d.Form.Message = r.PostFormValue("step"), r.PostFormValue("message")
	}
	catalog, err := c.reasonCatalog(r, org, e)
	if err != nil {
		return err
	}
	for _, rc := range catalog {
		d.Codes = append(d.Codes, reasonChoice{ReasonCode: rc, Checked: slices.Contains(d.Form.More, rc.Code)})
	}
	for _, code := range req.ReviewReasonCodes {
		d.Decided = append(d.Decided, reasonChoice{ReasonCode: kyc.ReasonCode{Code: code, Label: reasonLabel(catalog, code)}})
	}
	if d.Notes, err = c.notes(r, req.OrganizationID, req.Environment, kyc.SubjectKYCRequest, req.ID, caseURL(req.Environment, req.ID)+"/comments", names); err != nil {
		return err
	}
	if err := c.fillResubmissions(r, d); err != nil {
		return err
	}
	d.Timeline = timeline(c.eventsOrEmpty(r, req.ID), names, d.Personal)
	if d.Personal {
		if err := c.fillEvidence(r, d); err != nil {
			return err
		}
	}
	d.Reasons = reasons(req.ProcessingResult)
	title := a.FirstName + " " + a.LastName + " · " + req.PublicID
	return c.render(w, r, http.StatusOK, "case.html", &page{Title: title, Section: "queue", Data: d})
}

func (c *console) eventsOrEmpty(r *http.Request, id string) []kyc.KYCEvent {
	evs, err := c.store.FindKYCEvents(r.Context(), id)
	if err != nil {
		c.log.ErrorContext(r.Context(), "console timeline", "request", id, "err", err)
		return nil
	}
	return evs
}

// fillEvidence adds what only roles with personal data see: images, the
// document against the applicant, signals, screenings and duplicates.
func (c *console) fillEvidence(r *http.Request, d *casePage) error {
	caps, err := c.store.FindCaptures(r.Context(), d.Req.ID, "")
	if err != nil {
		return err
	}
	for _, cp := range caps {
		v := captureView{ID: cp.ID, Label: captureLabel(cp), URL: caseURL(env(r), d.Req.ID) + "/images/" + cp.ID, Width: cp.Width,
			Height: cp.Height, Method: cp.Method, CapturedAt: cp.CapturedAt}
		switch cp.Kind {
		case "document":
			d.Documents = append(d.Documents, v)
		case "selfie":
			d.Selfies = append(d.Selfies, v)
		default: // liveness frames and any kind added later
			d.Others = append(d.Others, v)
		}
	}
	pr := d.Req.ProcessingResult
	d.Signals = signals(pr, caps)
	d.Compare = compare(d.Applicant, d.Req.DocumentData, pr)
	for _, row := range d.Compare {
		if row.Differs {
			d.Differences = append(d.Differences, strings.ToLower(row.Field[:1])+row.Field[1:])
		}
	}
	d.Faces = faceViews(caseURL(env(r), d.Req.ID), pr)
	addr, err := c.store.FindAddressRead(r.Context(), d.Req)
	if err != nil {
		return err
	}
	d.Readings = readings(pr, caps, addr)
	d.FaceMatch = faceMatch(pr)
	d.Duplicates = duplicates(pr)
	d.Screenings = d.Req.Screenings
	d.Sandbox = sandbox(pr)
	return nil
}

// userNames maps the organization's user ids to names, for the timeline
// and four-eyes.
func (c *console) userNames(r *http.Request, orgID string) (map[string]string, error) {
	list, err := c.store.FindUsers(r.Context(), orgID)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(list))
	for _, u := range list {
		m[u.ID] = u.Name
	}
	return m, nil
}

func actorName(names map[string]string, id *string) string {
	if id == nil {
		return ""
	}
	if n, ok := names[*id]; ok {
		return n
	}
	return *id
}

// handleDecision handles "POST /console/{env}/cases/{id}/decision": approve
// or reject with a reason code and a note. With four-eyes the first
// decision waits for a second, different user.
func (c *console) handleDecision(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	var errs []kyc.FieldError
	decision, code, note := r.PostFormValue("decision"), r.PostFormValue("reasonCode"), strings.TrimSpace(r.PostFormValue("note"))
	more := r.PostForm["reasonCodes"]
	if decision != "approve" && decision != "reject" {
		errs = append(errs, kyc.FieldError{Field: "decision", Message: "choose approve or reject"})
	}
	if code != "" && !kyc.ValidReasonCodeShape(code) {
		errs = append(errs, kyc.FieldError{Field: "reasonCode", Message: "choose a reason code from the list"})
	}
	for _, m := range more {
		if !kyc.ValidReasonCodeShape(m) {
			errs = append(errs, kyc.FieldError{Field: "reasonCodes", Message: "choose reason codes from the list"})
			break
		}
	}
	switch {
	case note == "":
		errs = append(errs, kyc.FieldError{Field: "note", Message: "is required: say why"})
	case utf8.RuneCountInString(note) > 2000:
		errs = append(errs, kyc.FieldError{Field: "note", Message: "must be at most 2000 characters"})
	}
	if len(errs) > 0 {
		return kyc.Invalid(errs...)
	}
	id := sess.User.ID
	var req *kyc.KYCRequest
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		req, err = c.kyc.Review(tx, sess.User.OrganizationID, env(r), r.PathValue("id"),
			verification.ReviewInput{Approve: decision == "approve", Note: note, ReasonCode: code, ReasonCodes: more,
				By: kyc.Principal{Type: kyc.ActorUser, ID: id}},
			verification.Actor{Type: kyc.ActorReviewer, ID: &id})
		return err
	})
	if err != nil {
		return err
	}
	notice := "decided"
	if req.PendingReview != nil {
		notice = "first"
	}
	return redirect(w, r, caseURL(env(r), req.ID), notice)
}

// handleImage handles "GET /console/{env}/cases/{id}/images/{capture}":
// one captured image, through the session, never cached.
func (c *console) handleImage(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	req, err := c.store.FindKYCRequest(r.Context(), sess.User.OrganizationID, env(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	img, err := c.store.FindCaptureData(r.Context(), r.PathValue("capture"))
	if err != nil {
		return err
	}
	if img.RequestID != req.ID {
		return kyc.Errorf(kyc.ENotFound, "This request has no such image.")
	}
	if err := c.store.RecordAccess(r.Context(), req.OrganizationID, req.Environment, "kyc_request", req.ID, store.AccessImageViewed,
		"image "+img.ID); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", img.ContentType)
	h.Set("Cache-Control", "private, no-store")
	h.Set("Content-Disposition", "inline")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(img.Data); err != nil {
		c.log.DebugContext(r.Context(), "console image interrupted", "capture", img.ID, "err", err)
	}
	return nil
}
