package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"kycd/kyc"
)

// FaceDescriptor is the face descriptor the decision engine computed for
// one capture (a selfie or a document portrait): face.Descriptor's 128
// numbers. They are kept, sealed, for the duplicate-face check of later
// requests.
type FaceDescriptor struct {
	ID             string
	OrganizationID string
	Environment    kyc.Environment
	ApplicantID    string
	RequestID      string
	CaptureID      string
	Descriptor     []float32
	CreatedAt      time.Time
}

// SaveFaceDescriptor stores d, sealed with the active data key and the
// row id as associated data. A capture has one descriptor: saving another
// for the same capture (a request processed again) keeps the first.
func (tx *Tx) SaveFaceDescriptor(d *FaceDescriptor) error {
	d.ID, d.CreatedAt = "fd_"+NewULID(tx.now), tx.now
	plain := make([]byte, 0, 4*len(d.Descriptor))
	for _, v := range d.Descriptor {
		plain = binary.LittleEndian.AppendUint32(plain, math.Float32bits(v))
	}
	keyID, sealed, err := tx.sealFor(d.ApplicantID, plain, d.ID)
	if err != nil {
		return fmt.Errorf("save face descriptor: %w", err)
	}
	_, err = tx.exec(`INSERT INTO face_descriptors (id, organization_id, environment, applicant_id, request_id, capture_id,
		key_id, descriptor, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (capture_id) DO NOTHING`,
		d.ID, d.OrganizationID, string(d.Environment), d.ApplicantID, d.RequestID, d.CaptureID, keyID, sealed,
		kyc.FormatTime(tx.now))
	if err != nil {
		return fmt.Errorf("insert face descriptor: %w", err)
	}
	return nil
}

// FindFaceDescriptors returns, decrypted and oldest first, the face
// descriptors of the organization's applicants in env other than
// applicantID: what a new request of that applicant is compared with. It
// reads them all; a descriptor that does not decrypt is an error.
func (s *Store) FindFaceDescriptors(ctx context.Context, orgID string, env kyc.Environment, applicantID string) ([]FaceDescriptor, error) {
	rows, err := readPool{s.readStmts}.QueryContext(ctx, `SELECT id, applicant_id, request_id, capture_id, key_id, descriptor, created_at
		FROM face_descriptors WHERE organization_id = ? AND environment = ? AND applicant_id != ? ORDER BY id`,
		orgID, string(env), applicantID)
	if err != nil {
		return nil, fmt.Errorf("find face descriptors: %w", err)
	}
	defer rows.Close()
	var out []FaceDescriptor
	for rows.Next() {
		d := FaceDescriptor{OrganizationID: orgID, Environment: env}
		var keyID int64
		var sealed []byte
		var created string
		if err := rows.Scan(&d.ID, &d.ApplicantID, &d.RequestID, &d.CaptureID, &keyID, &sealed, &created); err != nil {
			return nil, fmt.Errorf("scan face descriptor: %w", err)
		}
		plain, err := s.keys.open(keyID, sealed, d.ID)
		if err != nil {
			return nil, fmt.Errorf("decrypt face descriptor: %w", err)
		}
		if len(plain)%4 != 0 {
			return nil, fmt.Errorf("face descriptor %s: %d bytes is not a whole number of float32", d.ID, len(plain))
		}
		d.Descriptor = make([]float32, len(plain)/4)
		for i := range d.Descriptor {
			d.Descriptor[i] = math.Float32frombits(binary.LittleEndian.Uint32(plain[4*i:]))
		}
		d.CreatedAt = parseTime(created)
		out = append(out, d)
	}
	return out, rows.Err()
}
