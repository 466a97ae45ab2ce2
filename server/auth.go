package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

type keyCtx struct{}

// keyFrom returns the authenticated key of the request; only routes
// registered with handle have one.
func keyFrom(ctx context.Context) *kyc.APIKey {
	k, _ := ctx.Value(keyCtx{}).(*kyc.APIKey)
	return k
}

func authError(code, reason, msg string) error {
	return &kyc.Error{Code: code, Reason: reason, Message: msg}
}

// authenticate checks the bearer key on every request against the database
// (no cache), so that a key revoked by the CLI fails on its very next use.
func (s *Server) authenticate(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		h := r.Header.Get("Authorization")
		if strings.TrimSpace(h) == "" {
			return authError(kyc.EMissingAPIKey, kyc.ReasonMissingAPIKey, "No API key given. Send it as Authorization: Bearer <API_KEY>.")
		}
		scheme, token, _ := strings.Cut(strings.TrimSpace(h), " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return authError(kyc.EInvalidAPIKey, kyc.ReasonInvalidAPIKey, "The Authorization header must use the Bearer scheme: Authorization: Bearer <API_KEY>.")
		}
		parsed, ok := kyc.ParseAPIKey(strings.TrimSpace(token))
		if !ok {
			return authError(kyc.EInvalidAPIKey, kyc.ReasonInvalidAPIKey, "The API key is malformed. Keys look like svc_test_<id>.<secret> or svc_live_<id>.<secret>.")
		}
		key, err := s.store.FindAPIKey(r.Context(), parsed.ID)
		if kyc.ErrorCode(err) == kyc.ENotFound {
			return authError(kyc.EInvalidAPIKey, kyc.ReasonInvalidAPIKey, "The API key is not valid.")
		}
		if err != nil {
			return err
		}
		sum := sha256.Sum256([]byte(parsed.Secret))
		if subtle.ConstantTimeCompare(sum[:], key.SecretHash) != 1 || key.Environment != parsed.Environment {
			return authError(kyc.EInvalidAPIKey, kyc.ReasonInvalidAPIKey, "The API key is not valid.")
		}
		if key.RevokedAt != nil {
			return authError(kyc.EInvalidAPIKey, kyc.ReasonRevokedAPIKey, "The API key was revoked. Create a new key.")
		}
		requestInfoFrom(r.Context()).key = key
		s.noteKeyUse(key.ID, s.clientIP(r), s.now())
		// What this request changes is audited as done by its key.
		ctx := store.WithActor(context.WithValue(r.Context(), keyCtx{}, key), kyc.Principal{Type: kyc.ActorAPIKey, ID: "key_" + key.ID})
		return next(w, r.WithContext(ctx))
	}
}

// checkEnvironment reads the optional body field "environment": it must be
// sandbox or live (else a validation detail) and the key's own environment
// (else 403 wrong_environment, as spec §5.3 says for a mismatch).
func checkEnvironment(o *object, key *kyc.APIKey) error {
	v := o.str("environment")
	if v == nil {
		return nil
	}
	env := kyc.Environment(*v)
	if !env.Valid() {
		o.fail("environment", "must be sandbox or live")
		return nil
	}
	if env != key.Environment {
		return &kyc.Error{Code: kyc.EWrongEnvironment, Reason: kyc.ReasonWrongEnvironment,
			Message: fmt.Sprintf("The body says environment %s but this API key is for %s.", env, key.Environment),
			Details: []kyc.FieldError{{Field: "environment", Message: "must be the API key's environment, " + string(key.Environment)}}}
	}
	return nil
}
