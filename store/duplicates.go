package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
)

// Duplicate is another request of the organization that shares something
// with the one being decided.
type Duplicate struct {
	RequestID   string `json:"requestId"`
	ApplicantID string `json:"applicantId"`
	Status      string `json:"status"`
	What        string `json:"what"` // document_number, image, applicant_details
}

// FindDuplicates looks, in r's organization and environment, for other
// applicants' requests with the same document number, any of the same
// images (by the hash of the uploaded file or of the stored image), or —
// among approved requests — the same name and date of birth.
//
// number is r's document number as the engine knows it: the one read
// from the document when it was read, else the typed one (empty: none).
// It is compared with what each other request's document said when its
// document was read (SetDocumentNumberRead), else with its typed number.
func (s *Store) FindDuplicates(ctx context.Context, r *kyc.KYCRequest, a *kyc.Applicant, number string, hashes []string) ([]Duplicate, error) {
	var out []Duplicate
	add := func(what, q string, args ...any) error {
		rows, err := s.reader.QueryContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("find duplicates (%s): %w", what, err)
		}
		defer rows.Close()
		for rows.Next() {
			d := Duplicate{What: what}
			if err := rows.Scan(&d.RequestID, &d.ApplicantID, &d.Status); err != nil {
				return fmt.Errorf("scan duplicate: %w", err)
			}
			out = append(out, d)
		}
		return rows.Err()
	}
	if n := kyc.NormalizeDocumentNumber(number); n != "" {
		// document_number and document_number_read hold keyed HMACs of
		// the numbers (datakey.go), one per data key that may have
		// sealed a row.
		idx, err := s.keys.documentIndexes(r.OrganizationID, n)
		if err != nil {
			return nil, fmt.Errorf("find duplicates: %w", err)
		}
		in := strings.TrimSuffix(strings.Repeat("?,", len(idx)), ",")
		args := append(append([]any{r.OrganizationID, string(r.Environment), r.ApplicantID}, idx...), idx...)
		// "+id": sorting the few rows found beats walking the
		// organization's requests in id order (the plan SQLite picks for
		// ORDER BY id LIMIT), which read every request.
		if err := add("document_number", `SELECT id, applicant_id, status FROM kyc_requests
			WHERE organization_id = ? AND environment = ? AND applicant_id != ?
			AND (document_number_read IN (`+in+`) OR (document_number_read IS NULL AND document_number IN (`+in+`)))
			ORDER BY `+s.eng.noIndex("id")+` LIMIT 20`,
			args...); err != nil {
			return nil, err
		}
	}
	if len(hashes) > 0 {
		ph := strings.TrimSuffix(strings.Repeat("?,", len(hashes)), ",")
		args := []any{r.OrganizationID, string(r.Environment), r.ApplicantID}
		for _, h := range hashes {
			args = append(args, h)
		}
		for _, h := range hashes {
			args = append(args, h)
		}
		// The captures are found through their hash indexes first; a join
		// with an OR over both hashes made SQLite walk every request of the
		// organization instead (seconds per decision at 10,000 requests).
		if err := add("image", `SELECT k.id, k.applicant_id, k.status FROM kyc_requests k
			WHERE k.organization_id = ? AND k.environment = ? AND k.applicant_id != ?
			AND k.id IN (SELECT request_id FROM kyc_captures WHERE source_sha256 IN (`+ph+`)
				UNION SELECT request_id FROM kyc_captures WHERE sha256 IN (`+ph+`)) ORDER BY `+s.eng.noIndex("k.id")+` LIMIT 20`, args...); err != nil {
			return nil, err
		}
	}
	if a != nil && a.DOB != nil {
		if err := add("applicant_details", `SELECT k.id, k.applicant_id, k.status FROM kyc_requests k JOIN applicants p ON p.id = k.applicant_id
			WHERE k.organization_id = ? AND k.environment = ? AND k.applicant_id != ? AND k.status = 'approved'
			AND lower(p.first_name) = lower(?) AND lower(p.last_name) = lower(?) AND p.dob = ? ORDER BY k.id LIMIT 20`,
			r.OrganizationID, string(r.Environment), r.ApplicantID, a.FirstName, a.LastName, *a.DOB); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CountRequestsFromIP counts the organization's requests (in env) that
// received captures from ip since the given time.
func (s *Store) CountRequestsFromIP(ctx context.Context, orgID string, env kyc.Environment, ip string, since time.Time) (int, error) {
	var n int
	err := s.reader.QueryRowContext(ctx, `SELECT count(DISTINCT c.request_id) FROM kyc_captures c JOIN kyc_requests k ON k.id = c.request_id
		WHERE c.ip = ? AND c.captured_at >= ? AND k.organization_id = ? AND k.environment = ?`,
		ip, kyc.FormatTime(since), orgID, string(env)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count requests from ip: %w", err)
	}
	return n, nil
}

// SetDocumentNumberRead records the document number the engine read from
// r's document, for the duplicate check of later requests.
func (tx *Tx) SetDocumentNumberRead(r *kyc.KYCRequest, number string) error {
	var index any
	if n := kyc.NormalizeDocumentNumber(number); n != "" {
		if tx.keys == nil {
			return fmt.Errorf("set document number read: %w", ErrNoMasterKey)
		}
		index = tx.keys.documentIndex(tx.keys.active, r.OrganizationID, n)
	}
	if _, err := tx.exec(`UPDATE kyc_requests SET document_number_read = ? WHERE id = ?`, index, r.ID); err != nil {
		return fmt.Errorf("set document number read: %w", err)
	}
	return nil
}
