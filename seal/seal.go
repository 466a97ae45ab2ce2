// Package seal encrypts small secrets kept in the database (webhook signing
// secrets) with AES-256-GCM under a key kept outside it, so that a copy of
// the database file or of its backups does not give the secrets away.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
)

// KeySize is the key length: AES-256.
const KeySize = 32

// Box seals and opens secrets with one key.
type Box struct{ aead cipher.AEAD }

// New returns a Box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("seal: key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext. aad (e.g. the row's id) is authenticated but not
// stored: a sealed value copied to another row does not open there.
func (b *Box) Seal(plaintext, aad []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails (Go 1.24+)
	return b.aead.Seal(nonce, nonce, plaintext, aad)
}

// ErrOpen means a sealed value did not decrypt: another key, another row,
// or a damaged value.
var ErrOpen = errors.New("seal: cannot open: wrong key, wrong row or damaged value")

// Open decrypts a value made by Seal with the same aad.
func (b *Box) Open(sealed, aad []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, ErrOpen
	}
	out, err := b.aead.Open(nil, sealed[:n], sealed[n:], aad)
	if err != nil {
		return nil, ErrOpen
	}
	return out, nil
}

// LoadOrCreateKeyFile reads a base64 key from path, creating the file with
// a new random key (mode 0600) when it does not exist. created tells the
// caller to warn the operator to back the file up.
func LoadOrCreateKeyFile(path string) (key []byte, created bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key = make([]byte, KeySize)
		_, _ = rand.Read(key)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, false, fmt.Errorf("create secrets key file: %w", err)
		}
		if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
			f.Close()
			return nil, false, fmt.Errorf("write secrets key file: %w", err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, false, err
		}
		return key, true, f.Close()
	}
	if err != nil {
		return nil, false, fmt.Errorf("read secrets key file: %w", err)
	}
	key, err = base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != KeySize {
		return nil, false, fmt.Errorf("secrets key file %s must hold %d bytes in base64", path, KeySize)
	}
	return key, false, nil
}
