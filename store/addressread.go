package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"kycd/kyc"
)

// addressAAD binds a sealed address to its request (and tells it apart
// from the request's document details, sealed for the request id alone).
func addressAAD(requestID string) string { return requestID + "/address_read" }

// SetAddressRead records the address the engine read from r's document,
// sealed under the applicant's key, or clears it (a nil a): each decision
// rewrites it, so a resubmitted request shows what the last one read.
func (tx *Tx) SetAddressRead(r *kyc.KYCRequest, a *kyc.DocumentAddress) error {
	var data, keyID any
	if a != nil {
		b, err := json.Marshal(a)
		if err != nil {
			return fmt.Errorf("set address read: %w", err)
		}
		id, sealed, err := tx.sealFor(r.ApplicantID, b, addressAAD(r.ID))
		if err != nil {
			return fmt.Errorf("set address read: %w", err)
		}
		data, keyID = base64.StdEncoding.EncodeToString(sealed), id
	}
	if _, err := tx.exec(`UPDATE kyc_requests SET address_read = ?, address_read_key_id = ?
		WHERE id = ? AND organization_id = ? AND environment = ?`,
		data, keyID, r.ID, r.OrganizationID, string(r.Environment)); err != nil {
		return fmt.Errorf("set address read: %w", err)
	}
	return nil
}

// FindAddressRead returns the address the engine read from request r's
// document (r as found within its organization and environment), or nil
// when it read none.
func (s *Store) FindAddressRead(ctx context.Context, r *kyc.KYCRequest) (*kyc.DocumentAddress, error) {
	var data sql.NullString
	var keyID sql.NullInt64
	err := readPool{s.readStmts}.QueryRowContext(ctx, `SELECT address_read, address_read_key_id FROM kyc_requests
		WHERE id = ? AND organization_id = ? AND environment = ?`, r.ID, r.OrganizationID, string(r.Environment)).Scan(&data, &keyID)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !data.Valid) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find address read: %w", err)
	}
	plain, err := s.keys.openText(keyID.Int64, data.String, addressAAD(r.ID))
	if err != nil {
		return nil, fmt.Errorf("find address read: %w", err)
	}
	var a kyc.DocumentAddress
	if err := json.Unmarshal([]byte(plain), &a); err != nil {
		return nil, fmt.Errorf("find address read: %w", err)
	}
	return &a, nil
}
