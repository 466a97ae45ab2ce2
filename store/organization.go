package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"kycd/kyc"
)

// CreateOrganization adds an organization and returns it.
func (tx *Tx) CreateOrganization(name, contactEmail string) (*kyc.Organization, error) {
	if err := kyc.CheckContactEmail(contactEmail); err != nil {
		return nil, err
	}
	o := &kyc.Organization{ID: "org_" + NewULID(tx.now), Name: name, ContactEmail: contactEmail, CreatedAt: tx.now}
	_, err := tx.exec(`INSERT INTO organizations (id, name, contact_email, created_at) VALUES (?, ?, ?, ?)`,
		o.ID, o.Name, nullString(contactEmail), kyc.FormatTime(tx.now))
	if err != nil {
		return nil, fmt.Errorf("insert organization: %w", err)
	}
	if err := tx.auditOperatorAction(o.ID, "", "organization", o.ID, "organization.created", "name: "+name); err != nil {
		return nil, err
	}
	return o, nil
}

// SetContactEmail sets the organization's contact address, which
// receives its operational notices (an endpoint disabled, say); ""
// clears it. An address that is not a bare, valid e-mail address is a
// VALIDATION_ERROR on the field contactEmail: a notice to it would fail
// for good when sent.
func (tx *Tx) SetContactEmail(orgID, email string) error {
	if err := kyc.CheckContactEmail(email); err != nil {
		return err
	}
	if err := tx.updateOrg(`UPDATE organizations SET contact_email = ? WHERE id = ?`, nullString(email), orgID); err != nil {
		return err
	}
	shown := email
	if shown == "" {
		shown = "(none)"
	}
	return tx.auditOperatorAction(orgID, "", "organization", orgID, "organization.contact_email_changed", "contact e-mail: "+shown)
}

// CountOrganizations returns how many organizations exist.
func (tx *Tx) CountOrganizations() (int, error) {
	var n int
	err := tx.queryRow(`SELECT count(*) FROM organizations`).Scan(&n)
	return n, err
}

// FindOrganizations lists every organization, oldest first.
func (s *Store) FindOrganizations(ctx context.Context) ([]*kyc.Organization, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, name, contact_email, aml_threshold, aml_kinds, created_at FROM organizations ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("find organizations: %w", err)
	}
	defer rows.Close()
	var orgs []*kyc.Organization
	for rows.Next() {
		var o kyc.Organization
		var email sql.NullString
		var created string
		var threshold sql.NullFloat64
		var kinds sql.NullString
		if err := rows.Scan(&o.ID, &o.Name, &email, &threshold, &kinds, &created); err != nil {
			return nil, fmt.Errorf("scan organization: %w", err)
		}
		if kinds.Valid {
			o.AMLKinds = strings.Split(kinds.String, ",")
		}
		o.ContactEmail, o.CreatedAt = email.String, parseTime(created)
		if threshold.Valid {
			o.AMLThreshold = &threshold.Float64
		}
		orgs = append(orgs, &o)
	}
	return orgs, rows.Err()
}

// SetAMLThreshold sets (or, with nil, resets to the default) the
// organization's AML match threshold.
func (tx *Tx) SetAMLThreshold(orgID string, threshold *float64) error {
	res, err := tx.exec(`UPDATE organizations SET aml_threshold = ? WHERE id = ?`, threshold, orgID)
	if err != nil {
		return fmt.Errorf("set aml threshold: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return kyc.Errorf(kyc.ENotFound, "Organization %s not found.", orgID)
	}
	v := "default"
	if threshold != nil {
		v = strconv.FormatFloat(*threshold, 'f', -1, 64)
	}
	return tx.auditOperatorAction(orgID, "", "organization", orgID, "organization.aml_threshold_changed", "AML threshold: "+v)
}

// AMLThreshold returns the organization's threshold, or def when it has
// none of its own.
func (s *Store) AMLThreshold(ctx context.Context, orgID string, def float64) (float64, error) {
	var t sql.NullFloat64
	err := s.reader.QueryRowContext(ctx, `SELECT aml_threshold FROM organizations WHERE id = ?`, orgID).Scan(&t)
	if err != nil {
		return 0, fmt.Errorf("find aml threshold: %w", err)
	}
	if t.Valid {
		return t.Float64, nil
	}
	return def, nil
}

// SetAMLKinds sets the list kinds the organization screens (validated by
// kyc.ParseAMLKinds), or with nil resets them to the default.
func (tx *Tx) SetAMLKinds(orgID string, kinds []string) error {
	var v any
	if kinds != nil {
		v = strings.Join(kinds, ",")
	}
	res, err := tx.exec(`UPDATE organizations SET aml_kinds = ? WHERE id = ?`, v, orgID)
	if err != nil {
		return fmt.Errorf("set aml kinds: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return kyc.Errorf(kyc.ENotFound, "Organization %s not found.", orgID)
	}
	shown := "default"
	if kinds != nil {
		shown = strings.Join(kinds, ",")
	}
	return tx.auditOperatorAction(orgID, "", "organization", orgID, "organization.aml_kinds_changed", "AML kinds: "+shown)
}

// AMLKinds returns the list kinds the organization screens, or nil when
// it keeps the default.
func (s *Store) AMLKinds(ctx context.Context, orgID string) ([]string, error) {
	var k sql.NullString
	err := s.reader.QueryRowContext(ctx, `SELECT aml_kinds FROM organizations WHERE id = ?`, orgID).Scan(&k)
	if err != nil {
		return nil, fmt.Errorf("find aml kinds: %w", err)
	}
	if !k.Valid {
		return nil, nil
	}
	return strings.Split(k.String, ","), nil
}

// OrgSettings are an organization's decision settings.
type OrgSettings struct {
	DecisionPolicy []byte // JSON; nil: the default policy
	FourEyes       bool   // live manual decisions need two reviewers
	// ReportPersonalData is how its compliance reports print personal
	// data (full unless set).
	ReportPersonalData kyc.PersonalData
	// SLAHours is how many hours a submitted request may wait for
	// review, per environment (absent: no due time).
	SLAHours map[kyc.Environment]int
	// RoundRobin: requests that come to review are assigned in turn to
	// the reviewers who are in.
	RoundRobin bool
}

// SLA is how long a submitted request of env may wait for review (0: no
// due time).
func (o *OrgSettings) SLA(env kyc.Environment) time.Duration {
	return time.Duration(o.SLAHours[env]) * time.Hour
}

// FindOrgSettings returns the organization's decision settings.
func (s *Store) FindOrgSettings(ctx context.Context, orgID string) (*OrgSettings, error) {
	return findOrgSettings(ctx, readPool{s.readStmts}, orgID)
}

// FindOrgSettings inside the write transaction.
func (tx *Tx) FindOrgSettings(orgID string) (*OrgSettings, error) {
	return findOrgSettings(context.Background(), tx.q, orgID)
}

func findOrgSettings(ctx context.Context, q queryer, orgID string) (*OrgSettings, error) {
	var policy sql.NullString
	var four int
	var personal string
	var slaLive, slaSandbox sql.NullInt64
	var rr int
	err := q.QueryRowContext(ctx, `SELECT decision_policy, four_eyes, report_personal_data, review_sla_live_hours, review_sla_sandbox_hours,
		review_round_robin FROM organizations WHERE id = ?`, orgID).Scan(&policy, &four, &personal, &slaLive, &slaSandbox, &rr)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "Organization %s not found.", orgID)
	}
	if err != nil {
		return nil, fmt.Errorf("find organization settings: %w", err)
	}
	o := &OrgSettings{FourEyes: four == 1, ReportPersonalData: kyc.PersonalData(personal), SLAHours: map[kyc.Environment]int{},
		RoundRobin: rr == 1}
	if slaLive.Valid {
		o.SLAHours[kyc.Live] = int(slaLive.Int64)
	}
	if slaSandbox.Valid {
		o.SLAHours[kyc.Sandbox] = int(slaSandbox.Int64)
	}
	if policy.Valid {
		o.DecisionPolicy = []byte(policy.String)
	}
	return o, nil
}

// SetDecisionPolicy stores a validated policy (nil resets to the default).
// The audit row keeps the whole policy, so every change can be read back.
func (tx *Tx) SetDecisionPolicy(orgID string, policy []byte) error {
	var v any
	reason := "decision policy: default"
	if policy != nil {
		v = string(policy)
		reason = "decision policy: " + string(policy)
	}
	if err := tx.updateOrg(`UPDATE organizations SET decision_policy = ? WHERE id = ?`, v, orgID); err != nil {
		return err
	}
	return tx.auditOperatorAction(orgID, "", "organization", orgID, "organization.decision_policy_changed", reason)
}

// SetFourEyes turns the two-reviewer rule on or off.
func (tx *Tx) SetFourEyes(orgID string, on bool) error {
	if err := tx.updateOrg(`UPDATE organizations SET four_eyes = ? WHERE id = ?`, boolInt(on), orgID); err != nil {
		return err
	}
	return tx.auditOperatorAction(orgID, "", "organization", orgID, "organization.four_eyes_changed",
		"four-eyes review: "+map[bool]string{true: "on", false: "off"}[on])
}

// MaxSLAHours is the longest review SLA (a year).
const MaxSLAHours = 8760

// SetReviewSLA sets how many hours a submitted request of env may wait
// for review (0 removes the due time).
func (tx *Tx) SetReviewSLA(orgID string, env kyc.Environment, hours int) error {
	if hours < 0 || hours > MaxSLAHours {
		return kyc.Invalid(kyc.FieldError{Field: "slaHours", Message: fmt.Sprintf("must be from 1 to %d hours, or 0 for none", MaxSLAHours)})
	}
	col := map[kyc.Environment]string{kyc.Live: "review_sla_live_hours", kyc.Sandbox: "review_sla_sandbox_hours"}[env]
	if col == "" {
		return kyc.Invalid(kyc.FieldError{Field: "environment", Message: "must be live or sandbox"})
	}
	var v any
	text := "none"
	if hours > 0 {
		v, text = hours, fmt.Sprintf("%d h", hours)
	}
	if err := tx.updateOrg(`UPDATE organizations SET `+col+` = ? WHERE id = ?`, v, orgID); err != nil {
		return err
	}
	return tx.auditOperatorAction(orgID, env, "organization", orgID, "organization.review_sla_changed", "review SLA: "+text)
}

// SetReportPersonalData sets how the organization's reports print
// personal data.
func (tx *Tx) SetReportPersonalData(orgID string, p kyc.PersonalData) error {
	if _, ok := kyc.ParsePersonalData(string(p)); !ok {
		return kyc.Invalid(kyc.FieldError{Field: "reportPersonalData", Message: "must be full or masked"})
	}
	if err := tx.updateOrg(`UPDATE organizations SET report_personal_data = ? WHERE id = ?`, string(p), orgID); err != nil {
		return err
	}
	return tx.auditOperatorAction(orgID, "", "organization", orgID, "organization.report_personal_data_changed",
		"report personal data: "+string(p))
}

func (tx *Tx) updateOrg(q string, v any, orgID string) error {
	res, err := tx.exec(q, v, orgID)
	if err != nil {
		return fmt.Errorf("update organization: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return kyc.Errorf(kyc.ENotFound, "Organization %s not found.", orgID)
	}
	return nil
}

// FindOrganization returns one organization: NOT_FOUND when there is none.
func (s *Store) FindOrganization(ctx context.Context, id string) (*kyc.Organization, error) {
	var o kyc.Organization
	var email sql.NullString
	var created string
	var threshold sql.NullFloat64
	err := readPool{s.readStmts}.QueryRowContext(ctx, `SELECT id, name, contact_email, aml_threshold, created_at FROM organizations WHERE id = ?`, id).
		Scan(&o.ID, &o.Name, &email, &threshold, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "Organization %s not found.", id)
	}
	if err != nil {
		return nil, fmt.Errorf("find organization: %w", err)
	}
	o.ContactEmail, o.CreatedAt = email.String, parseTime(created)
	if threshold.Valid {
		o.AMLThreshold = &threshold.Float64
	}
	return &o, nil
}
