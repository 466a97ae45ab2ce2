package console

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"kycd/kyc"
	"kycd/store"
)

type keyRow struct {
	*kyc.APIKey
	store.KeyActivity
}

type keysPage struct {
	Keys    []keyRow
	Created string // the full key just made, shown once
	Name    string // the form's value after an error
}

// handleKeys handles "GET /console/{env}/keys": the environment's keys
// (never a secret: only its hash is stored), when and from where each was
// last used, and its requests in the last 24 hours.
func (c *console) handleKeys(w http.ResponseWriter, r *http.Request) error {
	return c.renderKeys(w, r, "")
}

func (c *console) renderKeys(w http.ResponseWriter, r *http.Request, created string) error {
	sess := sessionFrom(r)
	keys, err := c.store.FindAPIKeys(r.Context(), sess.User.OrganizationID)
	if err != nil {
		return err
	}
	act, err := c.store.FindKeyActivity(r.Context(), sess.User.OrganizationID, c.now())
	if err != nil {
		return err
	}
	d := keysPage{Created: created}
	for i := len(keys) - 1; i >= 0; i-- { // newest first
		if k := keys[i]; k.Environment == env(r) {
			d.Keys = append(d.Keys, keyRow{APIKey: k, KeyActivity: act[k.ID]})
		}
	}
	if formError(r) != nil {
		d.Name = r.PostFormValue("name")
	}
	return c.render(w, r, http.StatusOK, "keys.html", &page{Title: "API keys", Section: "keys", Data: d})
}

// handleKeyCreate handles "POST /console/{env}/keys": a new key, shown
// once. Its tier and rate limit are those of the organization's newest
// active key in the environment (free without one): they are commercial
// terms the operator sets with kycd keys create, not the admin's choice.
func (c *console) handleKeyCreate(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	name := strings.TrimSpace(r.PostFormValue("name"))
	if name == "" || utf8.RuneCountInString(name) > 100 {
		return kyc.Invalid(kyc.FieldError{Field: "name", Message: "is required, at most 100 characters"})
	}
	keys, err := c.store.FindAPIKeys(r.Context(), sess.User.OrganizationID)
	if err != nil {
		return err
	}
	p := store.NewAPIKeyParams{OrganizationID: sess.User.OrganizationID, Environment: env(r), Tier: kyc.TierFree, Name: name}
	for i := len(keys) - 1; i >= 0; i-- {
		if k := keys[i]; k.Environment == env(r) && k.RevokedAt == nil {
			p.Tier, p.RPMOverride = k.Tier, k.RPMOverride
			break
		}
	}
	var token string
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		_, token, err = tx.CreateAPIKey(p)
		return err
	}); err != nil {
		return err
	}
	noStore(w)
	return c.renderKeys(w, r, token)
}

// handleKeyRevoke handles "POST /console/{env}/keys/{id}/revoke": the next
// request with the key gets 401.
func (c *console) handleKeyRevoke(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	k, err := c.store.FindAPIKey(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	// Another organization's or environment's key does not exist here.
	if k.OrganizationID != sess.User.OrganizationID || k.Environment != env(r) {
		return kyc.Errorf(kyc.ENotFound, "API key %s not found.", r.PathValue("id"))
	}
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := tx.RevokeAPIKey(k.ID)
		return err
	}); err != nil {
		return err
	}
	return redirect(w, r, "/console/"+string(env(r))+"/keys", "key-revoked")
}
