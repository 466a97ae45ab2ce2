package cmd_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestoreBackupFile is issue 23 item 18: kycd restore --from
// file:///…/kyc-backup.db on a file kycd backup made failed with
// ".../ltx/9: not a directory". It restores that file (a copy: the
// backup is left as it was), checked and 0600, from a file:// URL or a
// plain path; --timestamp and a file that is no database are refused
// with what to do.
func TestRestoreBackupFile(t *testing.T) {
	dir := t.TempDir()
	db := initDB(t, filepath.Join(dir, "kyc.db"))
	if code, _, errOut := run(t, "orgs", "create", "--db", db, "--name", "Acme Ltd"); code != 0 {
		t.Fatalf("orgs create: %q", errOut)
	}
	backup := filepath.Join(dir, "kyc-backup.db")
	if code, _, errOut := run(t, "backup", "--db", db, "--out", backup); code != 0 {
		t.Fatalf("backup: %q", errOut)
	}
	before, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	for i, from := range []string{"file://" + backup, backup} {
		dst := filepath.Join(dir, "restored"+string(rune('a'+i))+".db")
		code, out, errOut := run(t, "restore", "--from", from, "--db", dst)
		if code != 0 || !strings.Contains(out, "from the backup file "+backup) || !strings.Contains(out, "integrity_check ok") {
			t.Fatalf("restore --from %s: %d %q %q", from, code, out, errOut)
		}
		if fi, err := os.Stat(dst); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("restored file: %v %v, want mode 0600", fi, err)
		}
		copyKeys(t, db, dst)
		if code, out, errOut := run(t, "orgs", "list", "--db", dst); code != 0 || !strings.Contains(out, "Acme Ltd") {
			t.Errorf("the restored database: %d %q %q", code, out, errOut)
		}
		if code, _, errOut := run(t, "restore", "--from", from, "--db", dst); code != 1 || !strings.Contains(errOut, "already exists") {
			t.Errorf("restore over an existing file: %d %q", code, errOut)
		}
		if code, _, errOut := run(t, "restore", "--from", from, "--db", dst, "--force"); code != 0 {
			t.Errorf("restore --force: %d %q", code, errOut)
		}
	}
	if after, _ := os.ReadFile(backup); !bytes.Equal(before, after) {
		t.Error("restoring changed the backup file")
	}
	if code, _, errOut := run(t, "restore", "--from", "file://"+backup, "--db", filepath.Join(dir, "t.db"), "--timestamp", "2026-01-01T00:00:00Z"); code != 1 ||
		!strings.Contains(errOut, "single-file backup") {
		t.Errorf("--timestamp on a backup file: %d %q", code, errOut)
	}
	junk := filepath.Join(dir, "notes.txt")
	os.WriteFile(junk, []byte("not a database"), 0o600)
	if code, _, errOut := run(t, "restore", "--from", "file://"+junk, "--db", filepath.Join(dir, "j.db")); code != 1 ||
		!strings.Contains(errOut, "not a SQLite database") || !strings.Contains(errOut, "kycd backup") {
		t.Errorf("a file that is no database: %d %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "j.db")); err == nil {
		t.Error("a refused restore left a file")
	}
}
