package server

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"kycd/aml"
	"kycd/kyc"
	"kycd/store"
)

// suppressionJSON is an AML suppression of the API: a false_positive
// decision carried to later screenings of the same subject.
type suppressionJSON struct {
	ID          string            `json:"id"`
	Environment kyc.Environment   `json:"environment"`
	MatchID     string            `json:"matchId"`
	MatchKey    string            `json:"matchKey"`
	DecisionID  string            `json:"decisionId"`
	CheckID     string            `json:"checkId"`
	Active      bool              `json:"active"`
	CreatedAt   string            `json:"createdAt"`
	LiftedAt    *string           `json:"liftedAt"`
	LiftedBy    *suppressionActor `json:"liftedBy"`
	LiftNote    *string           `json:"liftNote"`
}

type suppressionActor struct {
	ActorType kyc.ActorType `json:"actorType"`
	ActorID   string        `json:"actorId"`
}

func toSuppressionJSON(s *kyc.Suppression) suppressionJSON {
	j := suppressionJSON{ID: s.ID, Environment: s.Environment, MatchID: s.MatchID, MatchKey: s.MatchKey, DecisionID: s.DecisionID,
		CheckID: s.CheckID, Active: s.LiftedAt == nil, CreatedAt: kyc.FormatTime(s.CreatedAt), LiftedAt: timePtr(s.LiftedAt),
		LiftNote: s.LiftNote}
	if s.LiftedByType != nil && s.LiftedByID != nil {
		j.LiftedBy = &suppressionActor{ActorType: *s.LiftedByType, ActorID: *s.LiftedByID}
	}
	return j
}

// handleAMLSuppressionGet handles "GET /v1/aml-suppressions/{id}".
func (s *Server) handleAMLSuppressionGet(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	sup, err := s.store.FindSuppression(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toSuppressionJSON(sup))
	return nil
}

// handleAMLSuppressionLift handles "POST /v1/aml-suppressions/{id}/lift":
// body {"note"} (required: why). Later screenings of the subject show the
// match for review again.
func (s *Server) handleAMLSuppressionLift(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	note := o.str("note")
	var errs []kyc.FieldError
	switch {
	case note == nil || strings.TrimSpace(*note) == "":
		errs = append(errs, kyc.FieldError{Field: "note", Message: "is required: say why"})
	case utf8.RuneCountInString(*note) > aml.MaxNoteLen:
		errs = append(errs, kyc.FieldError{Field: "note", Message: "must be at most 2000 characters"})
	}
	if err := o.check(errs); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		sup, err := s.aml.LiftSuppression(tx, key.OrganizationID, key.Environment, r.PathValue("id"), strings.TrimSpace(*note),
			aml.Actor{Type: kyc.ActorAPIKey, ID: "key_" + key.ID})
		if err != nil {
			return nil, err
		}
		return toSuppressionJSON(sup), nil
	})
}
