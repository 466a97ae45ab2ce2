package cmd

import (
	"fmt"

	"kycd/seal"
)

// secretsFlag locates the key that seals webhook secrets in the database.
type secretsFlag struct {
	SecretsKeyFile string `name:"secrets-key-file" env:"KYCD_SECRETS_KEY_FILE" type:"path" help:"File with the key that encrypts webhook secrets in the database (default <db>.secret-key, created 0600 if missing). Back it up apart from the database."`
}

func (f secretsFlag) secretsBox(db string, e *env) (*seal.Box, error) {
	path := f.SecretsKeyFile
	if path == "" {
		path = db + ".secret-key"
	}
	key, created, err := seal.LoadOrCreateKeyFile(path)
	if err != nil {
		return nil, err
	}
	if created {
		fmt.Fprintf(e.stderr, "kycd: created %s, the key that encrypts webhook secrets in the database. Back it up apart from the database: without it the secrets cannot be read.\n", path)
	}
	return seal.New(key)
}
