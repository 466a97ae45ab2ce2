package cmd

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"kycd/seal"
	"kycd/store"
)

// masterKeyFlag locates the master key that wraps the database's data key
// (encryption at rest of captured images and document details).
type masterKeyFlag struct {
	MasterKeyFile string `name:"master-key-file" env:"KYCD_MASTER_KEY_FILE" group:"keys" type:"path" help:"File with the master key that encrypts captured images and document details: 32 bytes in base64 or hex. Or give the key itself in KYCD_MASTER_KEY. Default <db>.master-key, created 0600 for a new database. Back it up apart from the database."`
	MasterKey     string `name:"master-key" env:"KYCD_MASTER_KEY" group:"keys" hidden:"" help:"The master key itself, base64 or hex (set KYCD_MASTER_KEY rather than the flag, which other users can see)."`
}

// masterKey is a master key and where it came from, for messages.
type masterKey struct {
	key  []byte
	from string
	path string // the file it was read from, if any
}

// find returns the master key given by the flags, else the one in
// <db>.master-key; nil when there is none.
func (f masterKeyFlag) find(db string) (*masterKey, error) {
	switch {
	case f.MasterKeyFile != "" && f.MasterKey != "":
		return nil, errors.New("give the master key either as --master-key-file or as KYCD_MASTER_KEY, not both")
	case f.MasterKey != "":
		key, err := parseMasterKey(f.MasterKey)
		if err != nil {
			return nil, fmt.Errorf("KYCD_MASTER_KEY %w", err)
		}
		return &masterKey{key: key, from: "KYCD_MASTER_KEY"}, nil
	case f.MasterKeyFile != "":
		key, err := readMasterKeyFile(f.MasterKeyFile)
		if err != nil {
			return nil, err
		}
		return &masterKey{key: key, from: f.MasterKeyFile, path: f.MasterKeyFile}, nil
	}
	if store.IsPostgres(db) {
		return nil, nil // no file next to a database URL
	}
	path := db + ".master-key"
	key, err := readMasterKeyFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &masterKey{key: key, from: path, path: path}, nil
}

// open opens the database with its master key. With create, a database
// that has no data key yet and no key given gets a new master key in
// <db>.master-key, and the operator is told to back it up; a database that
// has one and no key given, or the wrong key, is refused.
func (f masterKeyFlag) open(e *env, db string, opts store.Options, create bool) (*store.Store, *masterKey, error) {
	var mk *masterKey
	opts.MasterKey = func(hasKeys bool) (store.Sealer, error) {
		var err error
		if mk, err = f.find(db); err != nil {
			return nil, err
		}
		switch {
		case mk == nil && store.IsPostgres(db):
			return nil, fmt.Errorf("on PostgreSQL give the master key with --master-key-file or KYCD_MASTER_KEY: every instance of the fleet needs the same key, and there is no file next to a database URL to keep one in (make one with: openssl rand -base64 32)")
		case mk == nil && hasKeys:
			return nil, fmt.Errorf("database %s is encrypted at rest and no master key was given: pass --master-key-file or set KYCD_MASTER_KEY (the default file %s does not exist); kycd does not run without it",
				db, db+".master-key")
		case !hasKeys && !create:
			return nil, fmt.Errorf("database %s has no data key yet (kycd serve makes one on its first start), so there is no master key to use", db)
		case mk == nil:
			var created bool
			if mk, created, err = createMasterKeyFile(db + ".master-key"); err != nil || !created {
				break
			}
			fmt.Fprintf(e.stderr, "kycd: created %s, the master key that encrypts captured images and document details in the database.\n"+
				"Back it up now, apart from the database and its backups: without it they cannot be read. For production keep it\n"+
				"out of the data directory and pass it with --master-key-file or KYCD_MASTER_KEY.\n", mk.path)
		}
		if err != nil {
			return nil, err
		}
		if mk.path != "" {
			warnIfShared(e, mk.path, "master key file")
		}
		return seal.New(mk.key)
	}
	st, err := store.Open(e.ctx, db, opts)
	if errors.Is(err, store.ErrWrongMasterKey) {
		return nil, nil, fmt.Errorf("the master key from %s does not open %s: it is not the key the database was encrypted with, or it was rotated away; kycd does not run without the right key",
			mk.from, db)
	}
	if err != nil {
		return nil, nil, err
	}
	return st, mk, nil
}

// openEncrypted opens the database for serve (and commands that read
// images or document details), making a master key for a new database,
// and encrypts what an older kycd stored in plaintext.
func (f masterKeyFlag) openEncrypted(e *env, db string, opts store.Options) (*store.Store, error) {
	st, _, err := f.open(e, db, opts, true)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	captures, requests, err := st.EncryptPlaintext(e.ctx)
	if captures+requests > 0 || err != nil {
		log.Info("encrypted data stored before encryption at rest", "captures", captures, "requests", requests)
	}
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("encrypt data stored before encryption at rest (resumes at the next start): %w", err)
	}
	return st, nil
}

// warnIfShared warns when other users of the machine can read a file that
// must stay private (a key file, the database).
func warnIfShared(e *env, path, what string) {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	fmt.Fprintf(e.stderr, "kycd: warning: the %s %s is mode %04o: other users of this machine can read it; run: chmod 600 %s\n",
		what, path, fi.Mode().Perm(), path)
}

// parseMasterKey decodes a 32-byte key written in hex or base64.
func parseMasterKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*seal.KeySize {
		if key, err := hex.DecodeString(s); err == nil {
			return key, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if key, err := enc.DecodeString(s); err == nil && len(key) == seal.KeySize {
			return key, nil
		}
	}
	return nil, fmt.Errorf("must hold %d bytes in base64 or hex (make one with: openssl rand -base64 32)", seal.KeySize)
}

func readMasterKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read master key: %w", err)
	}
	key, err := parseMasterKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("master key file %s %w", path, err)
	}
	return key, nil
}

// createMasterKeyFile writes a new random key, base64, mode 0600. If
// another kycd made the file first, its key is used (created false).
func createMasterKeyFile(path string) (mk *masterKey, created bool, err error) {
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key) // crypto/rand.Read never fails (Go 1.24+)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		if key, err = readMasterKeyFile(path); err != nil {
			return nil, false, err
		}
		return &masterKey{key: key, from: path, path: path}, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("create master key file: %w", err)
	}
	_, err = f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		os.Remove(path) // never leave a key file the database was not encrypted with
		return nil, false, fmt.Errorf("write master key file: %w", err)
	}
	return &masterKey{key: key, from: path, path: path}, true, nil
}

// MasterKeyCmd groups the master key commands.
type MasterKeyCmd struct {
	Rotate MasterKeyRotateCmd `cmd:"" help:"Re-wrap the database's data key under a new master key; no image or document is re-encrypted."`
}

// MasterKeyRotateCmd re-wraps the data keys under a new master key.
type MasterKeyRotateCmd struct {
	dbFlag
	masterKeyFlag
	NewKeyFile string `name:"new-key-file" required:"" type:"path" help:"File with the new master key, 32 bytes in base64 or hex (make one with: openssl rand -base64 32 > F; chmod 600 F)."`
}

// Run re-wraps the data keys in one transaction and says what to do next.
// A server already running keeps working: its data key did not change.
func (c *MasterKeyRotateCmd) Run(e *env) error {
	if err := existingDB(c.DB); err != nil {
		return err
	}
	newKey, err := readMasterKeyFile(c.NewKeyFile)
	if err != nil {
		return fmt.Errorf("new key: %w", err)
	}
	st, cur, err := c.open(e, c.DB, cliOptions(), false)
	if err != nil {
		return err
	}
	defer st.Close()
	if bytes.Equal(cur.key, newKey) {
		return fmt.Errorf("%s holds the current master key: nothing to rotate", c.NewKeyFile)
	}
	box, err := seal.New(newKey)
	if err != nil {
		return err
	}
	n, err := st.RewrapDataKeys(e.ctx, box)
	if err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "re-wrapped %d data key(s) of %s under the master key in %s (no image or document was re-encrypted).\n"+
		"From now on start kycd with --master-key-file %s or KYCD_MASTER_KEY set to it: the old key (%s) no longer opens\n"+
		"this database. Keep the old key as long as you keep backups made before now; they still need it.\n",
		n, c.DB, c.NewKeyFile, c.NewKeyFile, cur.from)
	if cur.path == c.DB+".master-key" && c.MasterKeyFile == "" {
		fmt.Fprintf(e.stdout, "%s still holds the old key and kycd reads it when no key is given: replace it with %s, or remove it.\n",
			cur.path, c.NewKeyFile)
	}
	return nil
}
