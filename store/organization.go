package store

import (
	"context"
	"database/sql"
	"fmt"

	"kycd/kyc"
)

// CreateOrganization adds an organization and returns it.
func (tx *Tx) CreateOrganization(name, contactEmail string) (*kyc.Organization, error) {
	o := &kyc.Organization{ID: "org_" + NewULID(tx.now), Name: name, ContactEmail: contactEmail, CreatedAt: tx.now}
	_, err := tx.exec(`INSERT INTO organizations (id, name, contact_email, created_at) VALUES (?, ?, ?, ?)`,
		o.ID, o.Name, nullString(contactEmail), kyc.FormatTime(tx.now))
	if err != nil {
		return nil, fmt.Errorf("insert organization: %w", err)
	}
	return o, nil
}

// CountOrganizations returns how many organizations exist.
func (tx *Tx) CountOrganizations() (int, error) {
	var n int
	err := tx.queryRow(`SELECT count(*) FROM organizations`).Scan(&n)
	return n, err
}

// FindOrganizations lists every organization, oldest first.
func (s *Store) FindOrganizations(ctx context.Context) ([]*kyc.Organization, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, name, contact_email, created_at FROM organizations ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("find organizations: %w", err)
	}
	defer rows.Close()
	var orgs []*kyc.Organization
	for rows.Next() {
		var o kyc.Organization
		var email sql.NullString
		var created string
		if err := rows.Scan(&o.ID, &o.Name, &email, &created); err != nil {
			return nil, fmt.Errorf("scan organization: %w", err)
		}
		o.ContactEmail, o.CreatedAt = email.String, parseTime(created)
		orgs = append(orgs, &o)
	}
	return orgs, rows.Err()
}
