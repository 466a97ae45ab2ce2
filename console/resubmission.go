package console

import (
	"fmt"
	"net/http"
	"strings"

	"kycd/kyc"
	"kycd/store"
	"kycd/verification"
)

// codeCounts lists reason codes once each, in order, with a count when
// one repeats ("CHECK_NOT_RUN ×7"): an earlier outcome can hold one
// CHECK_NOT_RUN per unmet floor rule.
func codeCounts(codes []string) string {
	n := map[string]int{}
	var order []string
	for _, c := range codes {
		if n[c] == 0 {
			order = append(order, c)
		}
		n[c]++
	}
	for i, c := range order {
		if n[c] > 1 {
			order[i] = fmt.Sprintf("%s ×%d", c, n[c])
		}
	}
	return strings.Join(order, ", ")
}

// stepOption is one step the reviewer can send back, in their words.
type stepOption struct {
	Value kyc.ResubmissionStep
	Label string
}

// stepLabels name the steps for reviewers.
var stepLabels = map[kyc.ResubmissionStep]string{
	kyc.StepDocumentFront: "Document, front",
	kyc.StepDocumentBack:  "Document, back",
	kyc.StepSelfie:        "Selfie (camera check, or an upload if the camera cannot be used)",
	kyc.StepLiveness:      "Camera check of the face (no upload)",
}

// fillResubmissions adds the request's resubmissions and, when the user
// may decide it now, the steps it can send back (those its workflow and
// document have) and how many resubmissions are left.
func (c *console) fillResubmissions(r *http.Request, d *casePage) error {
	if d.Req.Attempt > 1 {
		list, err := c.store.FindResubmissions(r.Context(), d.Req.ID)
		if err != nil {
			return err
		}
		d.Resubmissions = list
	}
	d.RedoLeft = kyc.MaxResubmissions - len(d.Resubmissions)
	if !d.CanDecide || d.RedoLeft <= 0 {
		return nil
	}
	docType := ""
	if d.Req.DocumentData != nil {
		docType = d.Req.DocumentData.DocumentType
	}
	for _, s := range kyc.ResubmissionSteps {
		in := kyc.ResubmissionInput{Step: s, Message: "..."}
		ok := true
		for _, e := range in.Validate(d.Req.WorkflowType, docType) {
			ok = ok && e.Field != "step"
		}
		if ok {
			d.Steps = append(d.Steps, stepOption{Value: s, Label: stepLabels[s]})
		}
	}
	return nil
}

// handleResubmission handles "POST /console/{env}/cases/{id}/resubmission":
// the reviewer asks the applicant to redo one step with a message; the
// applicant gets a new link that opens that step only.
func (c *console) handleResubmission(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	in := kyc.ResubmissionInput{Step: kyc.ResubmissionStep(r.PostFormValue("step")), Message: strings.TrimSpace(r.PostFormValue("message"))}
	id := sess.User.ID
	var req *kyc.KYCRequest
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		req, err = c.kyc.RequestResubmission(tx, sess.User.OrganizationID, env(r), r.PathValue("id"), in,
			kyc.Principal{Type: kyc.ActorUser, ID: id}, verification.Actor{Type: kyc.ActorReviewer, ID: &id})
		return err
	})
	if err != nil {
		return err
	}
	// Without an e-mail address kycd cannot send the link: the reviewer
	// must know that the integration has to deliver it.
	a, err := c.store.FindApplicant(r.Context(), req.OrganizationID, req.Environment, req.ApplicantID)
	if err != nil {
		return err
	}
	if a.Email == nil {
		return redirect(w, r, caseURL(env(r), req.ID), "resubmission-no-email")
	}
	return redirect(w, r, caseURL(env(r), req.ID), "resubmission")
}
