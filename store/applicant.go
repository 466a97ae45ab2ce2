package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"kycd/kyc"
)

const applicantColumns = `id, public_id, organization_id, environment, first_name, last_name, email, phone, dob,
	country, external_ref, metadata, status, created_at, updated_at, archived_at`

// applicantSelect is applicantColumns and the lifecycle columns (erasure.go).
const applicantSelect = applicantColumns + `, legal_hold_reason, legal_hold_at, erasure_scheduled_at, erased_at, relationship_end`

// CreateApplicant inserts an active applicant built from a validated input.
// A duplicate externalRef in the organization's environment is CONFLICT.
func (tx *Tx) CreateApplicant(orgID string, env kyc.Environment, in *kyc.ApplicantInput) (*kyc.Applicant, error) {
	a := &kyc.Applicant{
		ID: "app_" + NewULID(tx.now), PublicID: NewPublicID("app_"), OrganizationID: orgID, Environment: env,
		Status: kyc.ApplicantActive, CreatedAt: tx.now, UpdatedAt: tx.now, Metadata: map[string]any{},
	}
	applyApplicantInput(a, in)
	meta, err := json.Marshal(a.Metadata)
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	_, err = tx.exec(`INSERT INTO applicants (`+applicantColumns+`, relationship_end)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
		a.ID, a.PublicID, a.OrganizationID, string(a.Environment), a.FirstName, a.LastName,
		a.Email, a.Phone, a.DOB, a.Country, a.ExternalRef, string(meta), string(a.Status),
		kyc.FormatTime(tx.now), kyc.FormatTime(tx.now), a.RelationshipEnd)
	if errors.Is(err, errUnique) {
		return nil, duplicateExternalRef(a.ExternalRef, err)
	}
	if err != nil {
		return nil, fmt.Errorf("insert applicant: %w", err)
	}
	if err := tx.auditChange(orgID, env, "applicant", a.ID, "applicant.created", nil, string(a.Status), ""); err != nil {
		return nil, err
	}
	return a, nil
}

// UpdateApplicant applies a validated partial update. Archived applicants
// cannot be changed (UNPROCESSABLE).
func (tx *Tx) UpdateApplicant(orgID string, env kyc.Environment, idParam string, in *kyc.ApplicantInput) (*kyc.Applicant, error) {
	a, err := tx.FindApplicant(orgID, env, idParam)
	if err != nil {
		return nil, err
	}
	// The relationship often ends when the applicant is archived: its end
	// date may still be set then (it only ever lengthens retention), but
	// never on an erased applicant, whose data is gone.
	onlyEnd := len(in.Fields()) == 1 && in.RelationshipEnd != nil
	if a.ErasedAt != nil {
		return nil, &kyc.Error{Code: kyc.EUnprocessable, Reason: "applicant_erased",
			Message: fmt.Sprintf("Applicant %s was erased and cannot be changed.", idParam)}
	}
	if a.Status == kyc.ApplicantArchived && !onlyEnd {
		return nil, kyc.Errorf(kyc.EUnprocessable, "Applicant %s is archived; unarchive it before changing it (only relationshipEndDate may be set).", a.ID)
	}
	applyApplicantInput(a, in)
	a.UpdatedAt = tx.now
	meta, err := json.Marshal(a.Metadata)
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	_, err = tx.exec(`UPDATE applicants SET first_name = ?, last_name = ?, email = ?, phone = ?, dob = ?, country = ?,
		external_ref = ?, metadata = ?, relationship_end = ?, updated_at = ? WHERE id = ?`,
		a.FirstName, a.LastName, a.Email, a.Phone, a.DOB, a.Country, a.ExternalRef, string(meta),
		a.RelationshipEnd, kyc.FormatTime(tx.now), a.ID)
	if errors.Is(err, errUnique) {
		return nil, duplicateExternalRef(a.ExternalRef, err)
	}
	if err != nil {
		return nil, fmt.Errorf("update applicant: %w", err)
	}
	if a.ErasureScheduledAt != nil && in.RelationshipEnd != nil {
		// A scheduled erasure moves with the relationship end (it is
		// checked again when due as well).
		from, _, err := tx.erasableFrom(a)
		if err != nil {
			return nil, err
		}
		at := from
		a.ErasureScheduledAt = &at
		if _, err := tx.exec(`UPDATE applicants SET erasure_scheduled_at = ? WHERE id = ?`, kyc.FormatTime(from), a.ID); err != nil {
			return nil, fmt.Errorf("update applicant: %w", err)
		}
	}
	// The audit names the fields changed, never their values: the log
	// outlives erasure of the applicant's personal data.
	if err := tx.auditChange(orgID, env, "applicant", a.ID, "applicant.updated", nil, "", "fields: "+strings.Join(in.Fields(), ", ")); err != nil {
		return nil, err
	}
	return a, nil
}

// SetApplicantArchived archives (or unarchives) an applicant. Doing it twice
// is harmless: the applicant is returned unchanged.
func (tx *Tx) SetApplicantArchived(orgID string, env kyc.Environment, idParam string, archived bool) (*kyc.Applicant, error) {
	a, err := tx.FindApplicant(orgID, env, idParam)
	if err != nil {
		return nil, err
	}
	if (a.Status == kyc.ApplicantArchived) == archived {
		return a, nil
	}
	if a.ErasedAt != nil { // a tombstone stays archived: nothing of the person is left to verify
		return nil, &kyc.Error{Code: kyc.EUnprocessable, Reason: "applicant_erased",
			Message: fmt.Sprintf("Applicant %s was erased and cannot be unarchived.", idParam)}
	}
	if archived {
		a.Status, a.ArchivedAt = kyc.ApplicantArchived, &tx.now
	} else {
		a.Status, a.ArchivedAt = kyc.ApplicantActive, nil
	}
	a.UpdatedAt = tx.now
	var archivedAt any
	if a.ArchivedAt != nil {
		archivedAt = kyc.FormatTime(*a.ArchivedAt)
	}
	if _, err := tx.exec(`UPDATE applicants SET status = ?, archived_at = ?, updated_at = ? WHERE id = ?`,
		string(a.Status), archivedAt, kyc.FormatTime(tx.now), a.ID); err != nil {
		return nil, fmt.Errorf("archive applicant: %w", err)
	}
	action, from := "applicant.archived", kyc.ApplicantActive
	if !archived {
		action, from = "applicant.unarchived", kyc.ApplicantArchived
	}
	f := string(from)
	if err := tx.auditChange(orgID, env, "applicant", a.ID, action, &f, string(a.Status), ""); err != nil {
		return nil, err
	}
	return a, nil
}

func duplicateExternalRef(ref *string, err error) error {
	v := ""
	if ref != nil {
		v = *ref
	}
	return &kyc.Error{Code: kyc.EConflict, Message: fmt.Sprintf("An applicant with externalRef %q already exists.", v),
		Details: []kyc.FieldError{{Field: "externalRef", Message: "is already used by another applicant"}}, Err: err}
}

// applyApplicantInput copies the given fields; "" clears an optional field.
func applyApplicantInput(a *kyc.Applicant, in *kyc.ApplicantInput) {
	if in.FirstName != nil {
		a.FirstName = strings.TrimSpace(*in.FirstName)
	}
	if in.LastName != nil {
		a.LastName = strings.TrimSpace(*in.LastName)
	}
	opt := func(dst **string, v *string) {
		if v == nil {
			return
		}
		if *v == "" {
			*dst = nil
			return
		}
		s := *v
		*dst = &s
	}
	opt(&a.Email, in.Email)
	opt(&a.Phone, in.Phone)
	opt(&a.DOB, in.DOB)
	opt(&a.Country, in.Country)
	opt(&a.ExternalRef, in.ExternalRef)
	opt(&a.RelationshipEnd, in.RelationshipEnd)
	if in.Metadata != nil {
		a.Metadata = in.Metadata
	}
}

// FindApplicant looks an applicant up by internal or public id inside the
// write transaction. See Store.FindApplicant for the errors.
func (tx *Tx) FindApplicant(orgID string, env kyc.Environment, idParam string) (*kyc.Applicant, error) {
	return findApplicant(context.Background(), tx.q, orgID, env, idParam)
}

// FindApplicant looks an applicant up by internal or public id. It returns
// NOT_FOUND when no applicant of the organization has that id, and
// wrong_environment when it exists in the organization's other environment.
func (s *Store) FindApplicant(ctx context.Context, orgID string, env kyc.Environment, idParam string) (*kyc.Applicant, error) {
	return findApplicant(ctx, readPool{s.readStmts}, orgID, env, idParam)
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func findApplicant(ctx context.Context, q queryer, orgID string, env kyc.Environment, idParam string) (*kyc.Applicant, error) {
	col, id, err := idColumn("app_", idParam, "Applicant")
	if err != nil {
		return nil, err
	}
	a, err := scanApplicant(q.QueryRowContext(ctx, `SELECT `+applicantSelect+` FROM applicants
		WHERE `+col+` = ? AND organization_id = ?`, id, orgID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "Applicant %s not found.", idParam)
	}
	if err != nil {
		return nil, fmt.Errorf("find applicant: %w", err)
	}
	if a.Environment != env {
		return nil, wrongEnvironment("Applicant", idParam, a.Environment, env)
	}
	return a, nil
}

// idColumn picks the column to search by the id's form. A string of neither
// form cannot exist, so it is NOT_FOUND rather than a validation error.
func idColumn(prefix, idParam, noun string) (col, id string, err error) {
	switch kind, canon := kyc.ClassifyID(prefix, idParam); kind {
	case kyc.IDInternal:
		return "id", canon, nil
	case kyc.IDPublic:
		return "public_id", canon, nil
	}
	return "", "", kyc.Errorf(kyc.ENotFound, "%s %s not found.", noun, idParam)
}

func wrongEnvironment(noun, id string, has, want kyc.Environment) error {
	return &kyc.Error{Code: kyc.EWrongEnvironment, Reason: kyc.ReasonWrongEnvironment,
		Message: fmt.Sprintf("%s %s belongs to the %s environment; this API key is for %s.", noun, id, has, want)}
}

// FindApplicants returns one page of the organization's applicants in env,
// newest first, and the total number matching the filter.
func (s *Store) FindApplicants(ctx context.Context, orgID string, env kyc.Environment, f kyc.ApplicantFilter) ([]*kyc.Applicant, int, error) {
	where := `organization_id = ? AND environment = ?`
	args := []any{orgID, string(env)}
	if !f.IncludeArchived {
		where += ` AND status = 'active'`
	}
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM applicants WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count applicants: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+applicantSelect+` FROM applicants WHERE `+where+`
		ORDER BY id DESC LIMIT ? OFFSET ?`, append(args, f.Size, (f.Page-1)*f.Size)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find applicants: %w", err)
	}
	defer rows.Close()
	list := make([]*kyc.Applicant, 0, f.Size)
	for rows.Next() {
		a, err := scanApplicant(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("scan applicant: %w", err)
		}
		list = append(list, a)
	}
	return list, total, rows.Err()
}

func scanApplicant(row scanner) (*kyc.Applicant, error) {
	var a kyc.Applicant
	var env, status, meta, created, updated string
	var email, phone, dob, country, ref, archived, hold, holdAt, scheduled, erased, relEnd sql.NullString
	if err := row.Scan(&a.ID, &a.PublicID, &a.OrganizationID, &env, &a.FirstName, &a.LastName, &email, &phone, &dob,
		&country, &ref, &meta, &status, &created, &updated, &archived, &hold, &holdAt, &scheduled, &erased, &relEnd); err != nil {
		return nil, err
	}
	a.LegalHoldReason, a.RelationshipEnd = ptrString(hold), ptrString(relEnd)
	a.LegalHoldAt, a.ErasureScheduledAt, a.ErasedAt = nullTime(holdAt), nullTime(scheduled), nullTime(erased)
	a.Environment, a.Status = kyc.Environment(env), kyc.ApplicantStatus(status)
	a.Email, a.Phone, a.DOB, a.Country, a.ExternalRef = ptrString(email), ptrString(phone), ptrString(dob), ptrString(country), ptrString(ref)
	d := json.NewDecoder(strings.NewReader(meta))
	d.UseNumber() // keep 12345678901234567890 exactly as the caller sent it
	if err := d.Decode(&a.Metadata); err != nil {
		return nil, fmt.Errorf("decode metadata: %w", err)
	}
	a.CreatedAt, a.UpdatedAt = parseTime(created), parseTime(updated)
	if archived.Valid {
		t := parseTime(archived.String)
		a.ArchivedAt = &t
	}
	return &a, nil
}
