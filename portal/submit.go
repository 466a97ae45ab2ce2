package portal

import (
	"net/http"

	"kycd/kyc"
	"kycd/store"
)

// submitResponse is the answer to a submission: the page shows its done
// step and then sends the applicant to redirectUrl when there is one.
type submitResponse struct {
	Status      kyc.KYCStatus `json:"status"`
	RedirectURL *string       `json:"redirectUrl"`
}

// handleSubmit handles "POST /portal/{token}/submit". It answers 200 when
// the request is submitted; 400 VALIDATION_ERROR whose details name each
// missing photo (document.front, document.back, selfie) and documentData
// when the document details were not confirmed; 410 with reason
// done when it was submitted already (a retry after a lost answer: the
// page treats it as success), expired or cancelled.
func (p *portal) handleSubmit(w http.ResponseWriter, r *http.Request) error {
	token, err := tokenParam(r)
	if err != nil {
		return err
	}
	var req *kyc.KYCRequest
	err = p.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		req, err = p.svc.Submit(tx, token)
		return err
	})
	if err != nil {
		return err
	}
	res := submitResponse{Status: req.Status}
	if u := redirectURL(req); u != "" {
		res.RedirectURL = &u
	}
	p.writeJSON(w, r, http.StatusOK, res)
	return nil
}
