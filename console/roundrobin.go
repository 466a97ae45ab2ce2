package console

import (
	"net/http"

	"kycd/kyc"
	"kycd/store"
)

// handleRoundRobinSettings handles "POST /console/settings/round-robin":
// whether cases that come to review are assigned in turn to the
// reviewers who are in (roundRobin=on|off).
func (c *console) handleRoundRobinSettings(w http.ResponseWriter, r *http.Request) error {
	org := sessionFrom(r).User.OrganizationID
	var on bool
	switch r.PostFormValue("roundRobin") {
	case "on":
		on = true
	case "off":
	default:
		return kyc.Invalid(kyc.FieldError{Field: "roundRobin", Message: "must be on or off"})
	}
	set, err := c.store.FindOrgSettings(r.Context(), org)
	if err != nil {
		return err
	}
	if set.RoundRobin != on {
		if err := c.store.InTx(r.Context(), func(tx *store.Tx) error { return tx.SetRoundRobin(org, on) }); err != nil {
			return err
		}
	}
	return redirect(w, r, "/console/settings#round-robin", map[bool]string{true: "round-robin-on", false: "round-robin-off"}[on])
}

// handleAvailability handles "POST /console/account/availability": the
// signed-in reviewer says they are in (available=in: takes cases assigned
// in turn) or out. Only for themselves: nobody sets a colleague in.
func (c *console) handleAvailability(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	var in bool
	switch r.PostFormValue("available") {
	case "in":
		in = true
	case "out":
	default:
		return kyc.Invalid(kyc.FieldError{Field: "available", Message: "must be in or out"})
	}
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		return tx.SetReviewAvailable(sess.User.OrganizationID, sess.User.ID, in)
	}); err != nil {
		return err
	}
	back := "/console/live/queue"
	if e := kyc.Environment(r.PostFormValue("env")); e == kyc.Sandbox {
		back = "/console/sandbox/queue"
	}
	return redirect(w, r, back, map[bool]string{true: "in", false: "out"}[in])
}

// reviewersIn are the organization's active users who decide and are in.
func (c *console) reviewersIn(r *http.Request, org string) ([]*kyc.User, error) {
	ds, err := c.deciders(r, org)
	if err != nil {
		return nil, err
	}
	out := ds[:0:0]
	for _, u := range ds {
		if u.ReviewAvailable {
			out = append(out, u)
		}
	}
	return out, nil
}
