package store

import (
	"context"
	"fmt"
	"strings"

	"kycd/kyc"
)

// Reason codes: an organization's own decision codes (reason_codes), and
// every code of each request, the engine's and the decision's, one row
// each (kyc_request_reasons), which the list of all verifications filters
// on.

// reviewCodesOf is a request's decision codes, space-separated (nil for
// none): ReviewReasonCodes, or the single ReviewReasonCode a caller set.
func reviewCodesOf(r *kyc.KYCRequest) any {
	if len(r.ReviewReasonCodes) == 0 && r.ReviewReasonCode != nil && *r.ReviewReasonCode != "" {
		r.ReviewReasonCodes = []string{*r.ReviewReasonCode}
	}
	if len(r.ReviewReasonCodes) == 0 {
		return nil
	}
	return strings.Join(r.ReviewReasonCodes, " ")
}

// syncRequestReasons rewrites a request's rows in kyc_request_reasons
// when its codes changed (engine and review are space-separated strings
// or nil, as stored on the row).
func (tx *Tx) syncRequestReasons(r *kyc.KYCRequest, engine, review any) error {
	str := func(v any) string { s, _ := v.(string); return s }
	var oldEngine, oldReview *string
	if err := tx.queryRow(`SELECT reason_codes, review_reason_codes FROM kyc_requests WHERE id = ?`, r.ID).Scan(&oldEngine, &oldReview); err != nil {
		return fmt.Errorf("save reasons: %w", err)
	}
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if deref(oldEngine) == str(engine) && deref(oldReview) == str(review) {
		return nil
	}
	if _, err := tx.exec(`DELETE FROM kyc_request_reasons WHERE request_id = ?`, r.ID); err != nil {
		return fmt.Errorf("save reasons: %w", err)
	}
	for _, src := range []struct{ name, codes string }{{"engine", str(engine)}, {"review", str(review)}} {
		for _, c := range strings.Fields(src.codes) {
			if _, err := tx.exec(`INSERT INTO kyc_request_reasons (organization_id, environment, code, request_id, source)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, r.OrganizationID, string(r.Environment), c, r.ID, src.name); err != nil {
				return fmt.Errorf("save reasons: %w", err)
			}
		}
	}
	return nil
}

// FindReasonCodes returns the organization's own reason codes of an
// environment, by code (the built-in ones are kyc.BuiltInReasonCodes).
func (s *Store) FindReasonCodes(ctx context.Context, orgID string, env kyc.Environment) ([]kyc.ReasonCode, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT code, label, created_at FROM reason_codes WHERE organization_id = ? AND environment = ? ORDER BY code`,
		orgID, string(env))
	if err != nil {
		return nil, fmt.Errorf("find reason codes: %w", err)
	}
	defer rows.Close()
	out := []kyc.ReasonCode{}
	for rows.Next() {
		var c kyc.ReasonCode
		var at string
		if err := rows.Scan(&c.Code, &c.Label, &at); err != nil {
			return nil, fmt.Errorf("scan reason code: %w", err)
		}
		t := parseTime(at)
		c.CreatedAt = &t
		out = append(out, c)
	}
	return out, rows.Err()
}

// HasReasonCode reports whether the organization added code to the
// environment's list.
func (tx *Tx) HasReasonCode(orgID string, env kyc.Environment, code string) (bool, error) {
	var n int
	if err := tx.queryRow(`SELECT count(*) FROM reason_codes WHERE organization_id = ? AND environment = ? AND code = ?`,
		orgID, string(env), code).Scan(&n); err != nil {
		return false, fmt.Errorf("find reason code: %w", err)
	}
	return n > 0, nil
}

// MaxOrgReasonCodes bounds an environment's own reason codes.
const MaxOrgReasonCodes = 200

// CreateReasonCode adds an organization's code (checked by
// kyc.CheckReasonCode) and audits it: CONFLICT when it exists.
func (tx *Tx) CreateReasonCode(orgID string, env kyc.Environment, code, label string) (*kyc.ReasonCode, error) {
	var n int
	if err := tx.queryRow(`SELECT count(*) FROM reason_codes WHERE organization_id = ? AND environment = ?`, orgID, string(env)).Scan(&n); err != nil {
		return nil, fmt.Errorf("count reason codes: %w", err)
	}
	if n >= MaxOrgReasonCodes {
		return nil, kyc.Errorf(kyc.EUnprocessable, "This environment has %d reason codes of its own, the most it can have: remove one first.", n)
	}
	res, err := tx.exec(`INSERT INTO reason_codes (organization_id, environment, code, label, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, orgID, string(env), code, label, kyc.FormatTime(tx.now))
	if err != nil {
		return nil, fmt.Errorf("create reason code: %w", err)
	}
	if k, err := res.RowsAffected(); err != nil {
		return nil, fmt.Errorf("create reason code: %w", err)
	} else if k == 0 {
		return nil, &kyc.Error{Code: kyc.EConflict, Message: fmt.Sprintf("The reason code %s exists already.", code),
			Details: []kyc.FieldError{{Field: "code", Message: "exists already"}}}
	}
	if err := tx.auditChange(orgID, env, "reason_code", code, "reason_code.created", nil, "", label); err != nil {
		return nil, err
	}
	at := tx.now
	return &kyc.ReasonCode{Code: code, Label: label, CreatedAt: &at}, nil
}

// DeleteReasonCode removes an organization's code and audits it:
// NOT_FOUND when it has none by that code. Decisions that carry it keep
// it.
func (tx *Tx) DeleteReasonCode(orgID string, env kyc.Environment, code string) error {
	res, err := tx.exec(`DELETE FROM reason_codes WHERE organization_id = ? AND environment = ? AND code = ?`, orgID, string(env), code)
	if err != nil {
		return fmt.Errorf("delete reason code: %w", err)
	}
	if k, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete reason code: %w", err)
	} else if k == 0 {
		return kyc.Errorf(kyc.ENotFound, "This environment has no reason code %s of its own.", code)
	}
	return tx.auditChange(orgID, env, "reason_code", code, "reason_code.deleted", nil, "", "")
}
