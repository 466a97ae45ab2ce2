package cmd_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kycd/cmd"
	"kycd/kyc"
	"kycd/seal"
	"kycd/store"
)

// stop ends a serve child process with SIGTERM and waits for a clean exit.
func stop(t *testing.T, p *proc) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.wait(t); err != nil {
		t.Fatalf("serve exit: %v\n%s", err, p.log())
	}
}

// serveRefused runs serve in-process and expects it to refuse to start.
func serveRefused(t *testing.T, db string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code := cmd.Main(ctx, "test", append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, args...), &out, &errOut)
	if code != 1 {
		t.Fatalf("serve %v: exit %d, want a refusal (1)\n%s", args, code, errOut.String())
	}
	return errOut.String()
}

func readKeyFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != seal.KeySize {
		t.Fatalf("key file %s: %v", path, err)
	}
	return key
}

func withKey(key []byte) store.Options {
	return store.Options{CheckpointEvery: -1, MasterKey: func(bool) (store.Sealer, error) { return seal.New(key) }}
}

// seedCapture stores an image through the store, as the portal would.
func seedCapture(t *testing.T, db string, key, img []byte) string {
	t.Helper()
	st, err := store.Open(t.Context(), db, withKey(key))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	side := "front"
	c := &kyc.Capture{Kind: "document", Side: &side, ContentType: "image/jpeg", Width: 1, Height: 1, SHA256: "a", SourceSHA256: "b",
		Method: "upload", UserAgent: "test", IP: "192.0.2.1"}
	err = st.InTx(t.Context(), func(tx *store.Tx) error {
		org, err := tx.CreateOrganization("Seed", "")
		if err != nil {
			return err
		}
		first, last := "Ada", "Lovelace"
		a, err := tx.CreateApplicant(org.ID, kyc.Sandbox, &kyc.ApplicantInput{FirstName: &first, LastName: &last})
		if err != nil {
			return err
		}
		r := &kyc.KYCRequest{OrganizationID: org.ID, Environment: kyc.Sandbox, ApplicantID: a.ID, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: tx.Now()}
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		c.RequestID = r.ID
		return tx.SaveCapture(c, img)
	})
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// TestMasterKey: serve makes a master key for a new database, rotate
// re-wraps the data key under a new one, and from then on serve starts
// with the new key only; without a key, or with a wrong one, it refuses.
func TestMasterKey(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kyc.db")
	defaultFile := db + ".master-key"

	p := startServe(t, db)
	if !strings.Contains(p.log(), "created "+defaultFile) || !strings.Contains(p.log(), "Back it up") {
		t.Fatalf("no notice about the new master key:\n%s", p.log())
	}
	stop(t, p)
	if fi, err := os.Stat(defaultFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("master key file: %v %v", fi, err)
	}
	oldKey := readKeyFile(t, defaultFile)
	img := append(bytes.Repeat([]byte{0xff}, 4096), "KYCD-CLI-MARKER"...)
	capID := seedCapture(t, db, oldKey, img)
	// A restart reads the same file and says nothing more about it.
	p = startServe(t, db)
	stop(t, p)
	if strings.Contains(p.log(), "master key") {
		t.Errorf("restart mentioned the master key:\n%s", p.log())
	}

	newKey := make([]byte, seal.KeySize)
	rand.Read(newKey)
	newFile := filepath.Join(dir, "new.key")
	if err := os.WriteFile(newFile, []byte(hex.EncodeToString(newKey)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "master-key", "rotate", "--db", db, "--new-key-file", newFile)
	if code != 0 || !strings.Contains(out, "re-wrapped 1 data key") || !strings.Contains(out, defaultFile+" still holds the old key") {
		t.Fatalf("rotate: %d %q %q", code, out, errOut)
	}

	// The old key (still in the default file) no longer opens the database.
	if msg := serveRefused(t, db); !strings.Contains(msg, "does not open") || !strings.Contains(msg, defaultFile) {
		t.Errorf("serve with the old key: %q", msg)
	}
	if _, err := store.Open(t.Context(), db, withKey(oldKey)); !errors.Is(err, store.ErrWrongMasterKey) {
		t.Errorf("store with the old key: %v", err)
	}
	// The new one does, from the file or from KYCD_MASTER_KEY (base64 or
	// hex), and the image stored before the rotation reads back.
	stop(t, startServe(t, db, "--master-key-file", newFile))
	t.Setenv("KYCD_MASTER_KEY", base64.StdEncoding.EncodeToString(newKey))
	stop(t, startServe(t, db))
	st, err := store.Open(t.Context(), db, withKey(newKey))
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.FindCaptureData(t.Context(), capID)
	st.Close()
	if err != nil || !bytes.Equal(c.Data, img) {
		t.Fatalf("capture after rotation: %v", err)
	}
	if msg := serveRefused(t, db, "--master-key-file", newFile); !strings.Contains(msg, "not both") {
		t.Errorf("file and env: %q", msg)
	}
	t.Setenv("KYCD_MASTER_KEY", "not a key")
	if msg := serveRefused(t, db); !strings.Contains(msg, "KYCD_MASTER_KEY must hold 32 bytes") {
		t.Errorf("bad KYCD_MASTER_KEY: %q", msg)
	}
	os.Unsetenv("KYCD_MASTER_KEY")

	// No key at all for an encrypted database: refused, never a new key.
	if err := os.Remove(defaultFile); err != nil {
		t.Fatal(err)
	}
	if msg := serveRefused(t, db); !strings.Contains(msg, "encrypted at rest and no master key was given") {
		t.Errorf("serve without a key: %q", msg)
	}
	if _, err := os.Stat(defaultFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("serve made a new master key for an encrypted database: %v", err)
	}

	wrong := filepath.Join(dir, "wrong.key")
	if err := os.WriteFile(wrong, []byte(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--master-key-file", newFile, "--new-key-file", newFile}, "holds the current master key"},
		{[]string{"--master-key-file", filepath.Join(dir, "missing.key"), "--new-key-file", newFile}, "no such file"},
		{[]string{"--new-key-file", newFile}, "no master key was given"},
		{[]string{"--master-key-file", newFile, "--new-key-file", filepath.Join(dir, "kyc.db")}, "new key"},
		{[]string{"--db", filepath.Join(dir, "nonexistent.db"), "--master-key-file", newFile, "--new-key-file", wrong}, "no database at"},
	} {
		code, _, errOut := run(t, append([]string{"master-key", "rotate", "--db", db}, tt.args...)...)
		if code != 1 || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("rotate %v: %d %q, want %q", tt.args, code, errOut, tt.wantErr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nonexistent.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("rotate created a database: %v", err)
	}
	// A wrong current key changes nothing.
	if code, _, errOut := run(t, "master-key", "rotate", "--db", db, "--master-key-file", wrong, "--new-key-file", wrong); code != 1 || !strings.Contains(errOut, "does not open") {
		t.Errorf("rotate with a wrong key: %d %q", code, errOut)
	}

	// A database no kycd with a master key opened has no data key to rotate.
	fresh := filepath.Join(dir, "fresh.db")
	if st, err := store.Open(t.Context(), fresh, store.Options{CheckpointEvery: -1}); err != nil {
		t.Fatal(err)
	} else {
		st.Close()
	}
	if code, _, errOut := run(t, "master-key", "rotate", "--db", fresh, "--master-key-file", newFile, "--new-key-file", wrong); code != 1 || !strings.Contains(errOut, "no data key yet") {
		t.Errorf("rotate a database without a data key: %d %q", code, errOut)
	}
}
