package store_test

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"kycd/kyc"
	"kycd/seal"
	"kycd/store"
	"kycd/store/storetest"
)

// descriptor is a face descriptor whose numbers are easy to find in a
// file: 128 distinct values.
func descriptor(base float32) []float32 {
	d := make([]float32, 128)
	for i := range d {
		d[i] = base + float32(i)/1000
	}
	return d
}

func descriptorBytes(d []float32) []byte {
	var b []byte
	for _, v := range d {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func mustFace(t *testing.T, s *store.Store, r *kyc.KYCRequest, c *kyc.Capture, d []float32) *store.FaceDescriptor {
	t.Helper()
	f := &store.FaceDescriptor{OrganizationID: r.OrganizationID, Environment: r.Environment, ApplicantID: r.ApplicantID,
		RequestID: r.ID, CaptureID: c.ID, Descriptor: d}
	if err := s.InTx(t.Context(), func(tx *store.Tx) error { return tx.SaveFaceDescriptor(f) }); err != nil {
		t.Fatalf("save face descriptor: %v", err)
	}
	return f
}

// TestFaceDescriptorsEncrypted: descriptors are biometric data; they are
// sealed like the images, read back decrypted for other applicants only.
func TestFaceDescriptorsEncrypted(t *testing.T) {
	s := storetest.OpenOn(t, "sqlite") // reads the SQLite file directly
	org := storetest.MustOrg(t, s, "acme", nil)
	r1, r2 := mustRequest(t, s, org.ID, nil), mustRequest(t, s, org.ID, nil)
	c1, c2 := mustCapture(t, s, r1.ID, "front", []byte("img1")), mustCapture(t, s, r2.ID, "front", []byte("img2"))
	d1, d2 := descriptor(0.25), descriptor(-0.5)
	f1 := mustFace(t, s, r1, c1, d1)
	mustFace(t, s, r2, c2, d2)
	// A second descriptor for the same capture (processed again) keeps
	// the first.
	mustFace(t, s, r1, c1, descriptor(0.75))

	got, err := s.FindFaceDescriptors(t.Context(), org.ID, kyc.Sandbox, r2.ApplicantID)
	if err != nil || len(got) != 1 {
		t.Fatalf("FindFaceDescriptors: %v, %d", err, len(got))
	}
	if g := got[0]; g.ID != f1.ID || g.ApplicantID != r1.ApplicantID || g.RequestID != r1.ID || g.CaptureID != c1.ID || !slices.Equal(g.Descriptor, d1) {
		t.Errorf("read back %+v", g)
	}
	if got, err := s.FindFaceDescriptors(t.Context(), org.ID, kyc.Live, "app_none"); err != nil || len(got) != 0 {
		t.Errorf("live: %v, %d", err, len(got))
	}
	other := storetest.MustOrg(t, s, "other", nil)
	if got, err := s.FindFaceDescriptors(t.Context(), other.ID, kyc.Sandbox, "app_none"); err != nil || len(got) != 0 {
		t.Errorf("another organization: %v, %d", err, len(got))
	}

	for _, when := range []string{"open", "closed"} {
		if when == "closed" {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range [][]float32{d1, d2} {
			if filesContain(t, s.Path(), descriptorBytes(d)[:64]) {
				t.Fatalf("%s: a plaintext descriptor is in the database file or WAL", when)
			}
		}
	}
	db := rawDB(t, s.Path())
	var n int
	var stored []byte
	if err := db.QueryRow(`SELECT count(*), max(descriptor) FROM face_descriptors WHERE key_id IS NOT NULL`).Scan(&n, &stored); err != nil {
		t.Fatal(err)
	}
	// nonce + tag, after the applicant key's header (subjectkey.go): 8
	// magic bytes, the id's length and the id (app_ and a 26-character ULID).
	if n != 2 || len(stored) != 128*4+28+9+30 {
		t.Errorf("stored: %d sealed rows, %d bytes", n, len(stored))
	}

	// Sealed for its row: moved to another row by SQL, it does not open.
	if _, err := db.Exec(`UPDATE face_descriptors SET descriptor = (SELECT descriptor FROM face_descriptors WHERE capture_id = ?)
		WHERE capture_id = ?`, c2.ID, c1.ID); err != nil {
		t.Fatal(err)
	}
	s = mustOpenWith(t, s.Path(), storetest.MasterKey)
	if _, err := s.FindFaceDescriptors(t.Context(), org.ID, kyc.Sandbox, r2.ApplicantID); !errors.Is(err, seal.ErrOpen) {
		t.Errorf("swapped descriptor: %v, want seal.ErrOpen", err)
	}
}

// BenchmarkFindFaceDescriptors reads and decrypts an organization's
// 10,000 descriptors: what the duplicate-face check reads per request.
func BenchmarkFindFaceDescriptors(b *testing.B) {
	s := storetest.Open(b)
	org := storetest.MustOrg(b, s, "acme", nil)
	const n, batch = 10000, 500
	first, last := "Ada", "Lovelace"
	for i := 0; i < n; i += batch {
		err := s.InTx(b.Context(), func(tx *store.Tx) error {
			for j := range batch {
				a, err := tx.CreateApplicant(org.ID, kyc.Live, &kyc.ApplicantInput{FirstName: &first, LastName: &last})
				if err != nil {
					return err
				}
				r := &kyc.KYCRequest{OrganizationID: org.ID, Environment: kyc.Live, ApplicantID: a.ID, Status: kyc.KYCLinkGenerated,
					Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: tx.Now()}
				if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
					return err
				}
				c := &kyc.Capture{RequestID: r.ID, Kind: "selfie", ContentType: "image/jpeg", SHA256: "x", SourceSHA256: "x",
					Method: "camera", UserAgent: "test", IP: "192.0.2.1"}
				if err := tx.SaveCapture(c, []byte("img")); err != nil {
					return err
				}
				if err := tx.SaveFaceDescriptor(&store.FaceDescriptor{OrganizationID: org.ID, Environment: kyc.Live, ApplicantID: a.ID,
					RequestID: r.ID, CaptureID: c.ID, Descriptor: descriptor(float32(i+j) / n)}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := s.FindFaceDescriptors(b.Context(), org.ID, kyc.Live, "app_none")
		if err != nil || len(got) != n {
			b.Fatalf("%v, %d", err, len(got))
		}
	}
}
