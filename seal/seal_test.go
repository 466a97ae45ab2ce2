package seal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSealOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kyc.db.secret-key")
	key, created, err := LoadOrCreateKeyFile(path)
	if err != nil || !created || len(key) != KeySize {
		t.Fatalf("create: %v %v %d", err, created, len(key))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	again, created, err := LoadOrCreateKeyFile(path)
	if err != nil || created || !bytes.Equal(again, key) {
		t.Fatalf("reload: %v %v", err, created)
	}
	box, _ := New(key)
	sealed := box.Seal([]byte("whsec_abc"), []byte("we_1"))
	if bytes.Contains(sealed, []byte("whsec_abc")) {
		t.Fatal("plaintext visible in the sealed value")
	}
	if got, err := box.Open(sealed, []byte("we_1")); err != nil || string(got) != "whsec_abc" {
		t.Fatalf("open: %q %v", got, err)
	}
	other, _ := New(bytes.Repeat([]byte{1}, KeySize))
	for name, open := range map[string]func() ([]byte, error){
		"other row": func() ([]byte, error) { return box.Open(sealed, []byte("we_2")) },
		"other key": func() ([]byte, error) { return other.Open(sealed, []byte("we_1")) },
		"damaged":   func() ([]byte, error) { d := bytes.Clone(sealed); d[len(d)-1] ^= 1; return box.Open(d, []byte("we_1")) },
		"truncated": func() ([]byte, error) { return box.Open(sealed[:5], []byte("we_1")) },
	} {
		if _, err := open(); !errors.Is(err, ErrOpen) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := os.WriteFile(path, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateKeyFile(path); err == nil {
		t.Error("a malformed key file was accepted")
	}
}
