package server

import (
	"net/http"

	"kycd/kyc"
	"kycd/store"
)

// callbackSecretJSON is the organization's callback signing secret for the
// key's environment; secret appears only in the answer to a rotation.
type callbackSecretJSON struct {
	Environment             kyc.Environment `json:"environment"`
	DualSignDuringOverlap   bool            `json:"dualSignDuringOverlap"`
	PreviousSecretExpiresAt *string         `json:"previousSecretExpiresAt"`
	CreatedAt               string          `json:"createdAt"`
	RotatedAt               *string         `json:"rotatedAt"`
	Secret                  string          `json:"secret,omitempty"`
}

func toCallbackSecretJSON(cs *store.CallbackSecret, withSecret bool) callbackSecretJSON {
	j := callbackSecretJSON{Environment: cs.Environment, DualSignDuringOverlap: cs.DualSign, PreviousSecretExpiresAt: timePtr(cs.PreviousUntil),
		CreatedAt: kyc.FormatTime(cs.CreatedAt), RotatedAt: timePtr(cs.RotatedAt)}
	if withSecret {
		j.Secret = cs.Secret
	}
	return j
}

// handleCallbackSecretGet handles "GET /v1/callback-secret": when the
// secret was made and last rotated, never the secret; 404 before the
// first KYC request with a callbackUrl.
func (s *Server) handleCallbackSecretGet(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	cs, err := s.store.FindCallbackSecret(r.Context(), key.OrganizationID, key.Environment)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toCallbackSecretJSON(cs, false))
	return nil
}

// handleCallbackSecretRotate handles "POST /v1/callback-secret/rotate":
// a new secret, shown once (the first one when there is none yet), with
// the same optional body as an endpoint's rotate-secret.
func (s *Server) handleCallbackSecretRotate(w http.ResponseWriter, r *http.Request) error {
	rot, err := readRotation(w, r)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		cs, err := tx.RotateCallbackSecret(s.secrets, key.OrganizationID, key.Environment, rot.overlap, rot.dualSign)
		if err != nil {
			return nil, err
		}
		return toCallbackSecretJSON(cs, true), nil
	})
}
