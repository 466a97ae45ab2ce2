package console

import (
	"net/http"

	"kycd/kyc"
	"kycd/store"
)

// handleEscalate handles "POST /console/{env}/cases/{id}/escalate": a
// reviewer hands the case to the senior queue with a reason.
func (c *console) handleEscalate(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	var req *kyc.KYCRequest
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		req, err = c.kyc.Escalate(tx, sess.User.OrganizationID, env(r), r.PathValue("id"), r.PostFormValue("reason"), sess.User)
		return err
	})
	if err != nil {
		return err
	}
	return redirect(w, r, caseURL(env(r), req.ID), "escalated")
}

// handleDeescalate handles "POST /console/{env}/cases/{id}/deescalate": a
// senior returns the case to the ordinary queue with a note.
func (c *console) handleDeescalate(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	var req *kyc.KYCRequest
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		req, err = c.kyc.Deescalate(tx, sess.User.OrganizationID, env(r), r.PathValue("id"), r.PostFormValue("note"), sess.User)
		return err
	})
	if err != nil {
		return err
	}
	return redirect(w, r, caseURL(env(r), req.ID), "deescalated")
}

// handleSeniorQueue handles "GET /console/{env}/senior-queue": the
// escalated cases, for senior reviewers and admins; the review queue's
// page and filters, escalated cases only.
func (c *console) handleSeniorQueue(w http.ResponseWriter, r *http.Request) error {
	return c.queue(w, r, true)
}
