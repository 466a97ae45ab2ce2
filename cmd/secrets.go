package cmd

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"

	"kycd/seal"
	"kycd/store"
)

// secretsFlag locates the key that seals webhook secrets in the database.
type secretsFlag struct {
	SecretsKeyFile string `name:"secrets-key-file" env:"KYCD_SECRETS_KEY_FILE" group:"keys" type:"path" help:"File with the key that encrypts webhook secrets in the database (default <db>.secret-key, created 0600 if missing). Back it up apart from the database."`
}

func (f secretsFlag) secretsBox(db string, e *env) (*seal.Box, error) {
	box, _, err := f.secrets(db, e)
	return box, err
}

// secrets loads the key file and returns the box that seals webhook
// secrets and a separate key, derived from it, that signs download URLs
// (derived, so URLs survive restarts without a second file to back up).
func (f secretsFlag) secrets(db string, e *env) (*seal.Box, []byte, error) {
	path := f.SecretsKeyFile
	if path == "" && store.IsPostgres(db) {
		return nil, nil, fmt.Errorf("on PostgreSQL give the webhook secrets key with --secrets-key-file or KYCD_SECRETS_KEY_FILE: every instance of the fleet needs the same key file (it is created 0600 if missing)")
	}
	if path == "" {
		path = db + ".secret-key"
	}
	key, created, err := seal.LoadOrCreateKeyFile(path)
	if err != nil {
		return nil, nil, err
	}
	if created {
		fmt.Fprintf(e.stderr, "kycd: created %s, the key that encrypts webhook secrets in the database. Back it up apart from the database: without it the secrets cannot be read.\n", path)
	}
	warnIfShared(e, path, "secrets key file")
	box, err := seal.New(key)
	if err != nil {
		return nil, nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("kycd download URL key v1"))
	return box, m.Sum(nil), nil
}
