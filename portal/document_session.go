package portal

import (
	"net/http"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// documentSessionResponse is the 201 answer that opens a document camera
// session: the nonce the page sends with each document photo it takes
// with the camera, and when the session ends.
type documentSessionResponse struct {
	ID       string `json:"id"`
	Nonce    string `json:"nonce"`
	Deadline string `json:"deadline"`
	Seconds  int    `json:"seconds"`
}

// handleDocumentSessionOpen handles "POST /portal/{token}/document-session":
// the page opens it when it starts the camera for a document photo. A
// photo posted to captures with the session's id and nonce before the
// deadline is a camera_session capture; any other document image is an
// upload, which a live decision does not approve.
func (p *portal) handleDocumentSessionOpen(w http.ResponseWriter, r *http.Request) error {
	token, err := p.usableToken(r)
	if err != nil {
		return err
	}
	var sess *kyc.DocumentSession
	var nonce string
	err = p.store.InTx(r.Context(), func(tx *store.Tx) error {
		var err error
		sess, nonce, err = p.svc.OpenDocumentSession(tx, token, truncate(r.UserAgent(), maxUserAgent), p.clientIP(r))
		return err
	})
	if err != nil {
		return livenessError(err) // too many sessions is 422
	}
	p.writeJSON(w, r, http.StatusCreated, documentSessionResponse{ID: sess.ID, Nonce: nonce,
		Deadline: kyc.FormatTime(sess.DeadlineAt), Seconds: int(kyc.DocumentSessionTTL / time.Second)})
	return nil
}
