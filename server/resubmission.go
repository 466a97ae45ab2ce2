package server

import (
	"context"
	"net/http"
	"strings"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// resubmissionJSON is one resubmission in a request's representation.
type resubmissionJSON struct {
	ID                      string                `json:"id"`
	Attempt                 int                   `json:"attempt"`
	Step                    kyc.ResubmissionStep  `json:"step"`
	Message                 string                `json:"message"`
	Status                  kyc.ResubmissionState `json:"status"`
	RequestedBy             map[string]any        `json:"requestedBy"`
	PriorAutomationDecision *string               `json:"priorAutomationDecision"`
	PriorDecisionReason     *string               `json:"priorDecisionReason"`
	PriorRiskScore          *float64              `json:"priorRiskScore"`
	PriorReasonCodes        []string              `json:"priorReasonCodes"`
	ExpiresAt               string                `json:"expiresAt"`
	CreatedAt               string                `json:"createdAt"`
	ClosedAt                *string               `json:"closedAt"`
}

func toResubmissionsJSON(list []kyc.Resubmission) []resubmissionJSON {
	out := make([]resubmissionJSON, len(list))
	for i, rs := range list {
		codes := rs.PriorReasonCodes
		if codes == nil {
			codes = []string{}
		}
		out[i] = resubmissionJSON{ID: rs.ID, Attempt: rs.Attempt, Step: rs.Step, Message: rs.Message, Status: rs.State,
			RequestedBy:             map[string]any{"actorType": rs.By.Type, "actorId": rs.By.ID},
			PriorAutomationDecision: rs.PriorAutomationDecision, PriorDecisionReason: rs.PriorDecisionReason,
			PriorRiskScore: rs.PriorRiskScore, PriorReasonCodes: codes, ExpiresAt: kyc.FormatTime(rs.ExpiresAt),
			CreatedAt: kyc.FormatTime(rs.CreatedAt), ClosedAt: timePtr(rs.ClosedAt)}
	}
	return out
}

// loadResubmissions fills req.Resubmissions; a request on its first
// attempt has none, and is not asked about.
func (s *Server) loadResubmissions(ctx context.Context, req *kyc.KYCRequest) error {
	if req.Attempt <= 1 || req.Resubmissions != nil {
		return nil
	}
	var err error
	req.Resubmissions, err = s.store.FindResubmissions(ctx, req.ID)
	return err
}

// handleKYCResubmission handles "POST /v1/kyc-requests/{id}/resubmission":
// body {"step", "message", "linkTtlHours"?}. A request awaiting review
// goes back to the applicant to redo one step; 400 INVALID_TRANSITION
// from any other status, 422 past kyc.MaxResubmissions.
func (s *Server) handleKYCResubmission(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	in := kyc.ResubmissionInput{}
	var errs []kyc.FieldError
	if step := o.str("step"); step != nil {
		in.Step = kyc.ResubmissionStep(*step)
	} else {
		errs = append(errs, kyc.FieldError{Field: "step", Message: "is required: document_front, document_back, selfie or liveness"})
	}
	if msg := o.str("message"); msg != nil {
		in.Message = strings.TrimSpace(*msg)
	} else {
		errs = append(errs, kyc.FieldError{Field: "message", Message: "is required: tell the applicant what to redo"})
	}
	if n, ok := o.integer("linkTtlHours"); ok {
		if n < 1 || n > int(kyc.MaxResubmissionTTL/time.Hour) {
			errs = append(errs, kyc.FieldError{Field: "linkTtlHours", Message: "must be 1 to 336 hours"})
		} else {
			in.TTL = time.Duration(n) * time.Hour
		}
	}
	if err := o.check(errs); err != nil {
		return err
	}
	return s.kycAction(w, r, o, func(tx *store.Tx, key *kyc.APIKey, id string) (*kyc.KYCRequest, error) {
		return s.kyc.RequestResubmission(tx, key.OrganizationID, key.Environment, id, in,
			kyc.Principal{Type: kyc.ActorAPIKey, ID: "key_" + key.ID}, actorOf(key, kyc.ActorReviewer))
	})
}
