package console

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"kycd/decision"
	"kycd/kyc"
	"kycd/store"
)

// queuePageSize is how many cases a queue page lists.
const queuePageSize = 50

type queuePage struct {
	Items        []queueRow
	Total        int
	Page, Pages  int
	Filter       store.QueueFilter
	Query        url.Values
	ReasonCodes  []string
	Now          time.Time
	MyID         string
	ClaimMinutes int
	Deciders     []*kyc.User // for the assignee filter
	SLA          time.Duration
	Overdue      int  // overdue requests of the environment (with an SLA)
	OnlyOverdue  bool // the overdue filter is on
	Tags         []string
	RoundRobin   bool // cases are assigned in turn
	In           bool // this user is in (takes cases in turn)
	Senior       bool // the senior queue: escalated cases only
}

// handleQueue handles "GET /console/{env}/queue": the KYC requests
// awaiting review, oldest submission first, with their age, reasons and
// who has claimed them; filters by claim, reason code and four-eyes.
func (c *console) handleQueue(w http.ResponseWriter, r *http.Request) error {
	return c.queue(w, r, false)
}

// queue renders the review queue, or with senior the escalated cases
// (which the ordinary queue leaves out).
func (c *console) queue(w http.ResponseWriter, r *http.Request, senior bool) error {
	sess := sessionFrom(r)
	q := r.URL.Query()
	f := store.QueueFilter{Claim: q.Get("claim"), UserID: sess.User.ID, Reason: q.Get("reason"), SecondEyes: q.Get("foureyes") == "1",
		Escalated: senior, Page: 1, Size: queuePageSize}
	switch f.Claim {
	case "", "unclaimed", "mine", "others":
	default:
		f.Claim = ""
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 && n < 100000 {
		f.Page = n
	}
	if len(f.Reason) > 64 {
		f.Reason = ""
	}
	if f.Assignee = q.Get("assignee"); len(f.Assignee) > 64 {
		f.Assignee = ""
	}
	if t := q.Get("tag"); t != "" {
		if f.Tag, _ = kyc.NormalizeTag(t); f.Tag == "" {
			return kyc.Invalid(kyc.FieldError{Field: "tag", Message: "is not a tag"})
		}
	}
	org, e := sess.User.OrganizationID, env(r)
	set, err := c.store.FindOrgSettings(r.Context(), org)
	if err != nil {
		return err
	}
	now := c.now()
	sla := set.SLA(e)
	overdue := 0
	if sla > 0 {
		if overdue, err = c.store.CountOverdue(r.Context(), org, e, now.Add(-sla), senior); err != nil {
			return err
		}
		if q.Get("overdue") == "1" {
			f.OverdueBefore = now.Add(-sla)
		}
	}
	items, total, err := c.store.FindReviewQueue(r.Context(), org, e, f, now)
	if err != nil {
		return err
	}
	deciders, err := c.deciders(r, org)
	if err != nil {
		return err
	}
	rows := make([]queueRow, len(items))
	for i, it := range items {
		rows[i] = queueRow{QueueItem: it, Due: dueOf(it.SubmittedAt, sla)}
		// One label per reason: the engine records a code once per image
		// it was found on.
		rows[i].Reasons = uniqueCodes(it.Reasons)
		rows[i].Overdue = rows[i].Due != nil && now.After(*rows[i].Due)
	}
	// The queue's requests await a decision: their reasons are the
	// engine's.
	tags, err := c.store.FindUsedTags(r.Context(), org, e, kyc.SubjectKYCRequest)
	if err != nil {
		return err
	}
	d := queuePage{Tags: tags, Items: rows, Total: total, Page: f.Page, Pages: max(1, (total+queuePageSize-1)/queuePageSize), Filter: f,
		Query: q, ReasonCodes: decision.AllCodes, Now: now, MyID: sess.User.ID, Deciders: deciders, SLA: sla, Overdue: overdue,
		OnlyOverdue: !f.OverdueBefore.IsZero(), RoundRobin: set.RoundRobin, In: sess.User.ReviewAvailable, Senior: senior}
	if senior {
		return c.render(w, r, http.StatusOK, "queue.html", &page{Title: "Senior queue", Section: "senior-queue", Data: d})
	}
	return c.render(w, r, http.StatusOK, "queue.html", &page{Title: "Review queue", Section: "queue", Data: d})
}

// handleClaim handles "POST /console/{env}/cases/{id}/claim".
func (c *console) handleClaim(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	var cl *store.Claim
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		cl, err = c.kyc.Claim(tx, sess.User.OrganizationID, env(r), r.PathValue("id"), sess.User)
		return err
	})
	if err != nil {
		return err
	}
	return redirect(w, r, caseURL(env(r), cl.RequestID), "claimed")
}

// handleRelease handles "POST /console/{env}/cases/{id}/release".
func (c *console) handleRelease(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		return c.kyc.Release(tx, sess.User.OrganizationID, env(r), r.PathValue("id"), sess.User)
	}); err != nil {
		return err
	}
	return redirect(w, r, caseURL(env(r), r.PathValue("id")), "released")
}

func caseURL(e kyc.Environment, id string) string { return "/console/" + string(e) + "/cases/" + id }

// uniqueCodes keeps the first of each code, in order.
func uniqueCodes(codes []string) []string {
	seen := make(map[string]bool, len(codes))
	out := codes[:0:0]
	for _, c := range codes {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}
