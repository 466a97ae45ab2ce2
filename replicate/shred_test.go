package replicate_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/replicate"
	"kycd/store"
	"kycd/store/storetest"
)

// TestReplicaCryptoShredded completes the proof of issue 28 for
// Litestream: a replica taken before an erasure, restored and put beside
// the live key store, no longer opens the erased applicant's image and
// document details, while another applicant's still open. The replica
// holds the erased rows (it predates the erasure); only the key is gone.
func TestReplicaCryptoShredded(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kyc.db")
	replicaDir := filepath.Join(dir, "replica")
	st, rep, logs := open(t, db, "file://"+replicaDir)

	type person struct{ applicant, request, capture string }
	var org string
	img := map[string][]byte{}
	add := func(name string) person {
		var p person
		err := st.InTx(t.Context(), func(tx *store.Tx) error {
			if org == "" {
				o, err := tx.CreateOrganization("shred", "")
				if err != nil {
					return err
				}
				org = o.ID
			}
			a, err := tx.CreateApplicant(org, kyc.Sandbox, &kyc.ApplicantInput{FirstName: &name, LastName: &name})
			if err != nil {
				return err
			}
			r := &kyc.KYCRequest{OrganizationID: org, Environment: kyc.Sandbox, ApplicantID: a.ID, Status: kyc.KYCLinkGenerated,
				Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: tx.Now()}
			if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
				return err
			}
			r.DocumentData = &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "GB", DocumentNumber: name + "123", ExpiryDate: "2031-01-01"}
			if err := tx.SaveKYCRequest(r); err != nil {
				return err
			}
			side := "front"
			c := &kyc.Capture{RequestID: r.ID, Kind: "document", Side: &side, ContentType: "image/jpeg", Width: 1, Height: 1,
				SHA256: "x", SourceSHA256: "x", Method: "upload", UserAgent: "t", IP: "192.0.2.1"}
			img[name] = []byte("image of " + name + " " + store.NewSecret(32))
			if err := tx.SaveCapture(c, img[name]); err != nil {
				return err
			}
			p = person{a.ID, r.ID, c.ID}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	victim, other := add("Victim"), add("Other")
	waitSynced(t, rep, logs)
	st.Close()
	rep.Close()
	// The replica as it was before the erasure.
	before := filepath.Join(dir, "replica-before")
	if err := os.CopyFS(before, os.DirFS(replicaDir)); err != nil {
		t.Fatal(err)
	}

	st, rep, logs = open(t, db, "file://"+replicaDir)
	if _, err := st.EraseApplicant(t.Context(), store.ErasureRequest{OrganizationID: org, Environment: kyc.Sandbox,
		ApplicantID: victim.applicant, Rule: kyc.ErasureOnRequest}); err != nil {
		t.Fatal(err)
	}
	waitSynced(t, rep, logs)
	st.Close()
	rep.Close()

	restored := filepath.Join(t.TempDir(), "restored.db")
	if _, err := replicate.Restore(t.Context(), "file://"+before, replicate.Credentials{}, restored, replicate.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	copyFile(t, db+".keys", restored+".keys") // the live key store, as a restore would use
	r, err := store.Open(t.Context(), restored, store.Options{MasterKey: storetest.MasterKey})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if caps, err := r.FindCaptures(t.Context(), victim.request, ""); err != nil || len(caps) != 1 {
		t.Fatalf("the replica should predate the erasure: %v, %d captures", err, len(caps))
	}
	if _, err := r.FindCaptureData(t.Context(), victim.capture); !errors.Is(err, store.ErrErased) {
		t.Errorf("erased image from the replica: %v, want ErrErased", err)
	}
	if _, err := r.FindKYCRequest(t.Context(), org, kyc.Sandbox, victim.request); !errors.Is(err, store.ErrErased) {
		t.Errorf("erased document details from the replica: %v, want ErrErased", err)
	}
	if c, err := r.FindCaptureData(t.Context(), other.capture); err != nil || !bytes.Equal(c.Data, img["Other"]) {
		t.Errorf("other applicant's image from the replica: %v", err)
	}
	if req, err := r.FindKYCRequest(t.Context(), org, kyc.Sandbox, other.request); err != nil || req.DocumentData == nil {
		t.Errorf("other applicant's document details from the replica: %v", err)
	}
}

// waitSynced waits for a sync that started after now to complete.
func waitSynced(t *testing.T, rep *replicate.Replicator, logs *syncedBuffer) {
	t.Helper()
	last := time.Now()
	deadline := last.Add(10 * time.Second)
	for {
		ok := true
		for _, s := range rep.Status() {
			ok = ok && s.LastSync.After(last)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica did not catch up: %+v\n%s", rep.Status(), logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
