package cmd

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"kycd/kyc"
	"kycd/store"
	"kycd/users"
)

// InitCmd makes a new database ready to serve, for scripts and installs:
// what serve's first start does (schema, keys, the first organization and
// a sandbox key), with the organization's real name and contact address,
// and optionally the first admin, without starting a server.
type InitCmd struct {
	dbFlag
	masterKeyFlag
	secretsFlag
	consoleFlag
	Name         string `name:"name" required:"" env:"KYCD_ORG_NAME" help:"The first organization's name."`
	ContactEmail string `name:"contact-email" required:"" env:"KYCD_ORG_EMAIL" help:"The organization's compliance contact: receives operational notices, such as a webhook endpoint disabled after failing."`
	AdminEmail   string `name:"admin-email" help:"Also create the first back-office user, an admin and installation admin with this e-mail, and print their one-time set-password link."`
	AdminName    string `name:"admin-name" help:"The first admin's name (default: the e-mail address)."`
	SandboxKey   bool   `name:"sandbox-key" default:"true" negatable:"" help:"Create a sandbox API key and print it once (--no-sandbox-key: none; make keys later with kycd keys create)."`
}

// Run creates the database, or fills one that has no organization yet
// (an interrupted init, or a database only migrated), and refuses one
// that has: running it twice must never make a second organization.
// Standard output has one labelled line per thing made, for scripts:
// "organization org_…", "sandbox-key svc_test_…", "admin-link https://…".
func (c *InitCmd) Run(e *env) error {
	name := strings.TrimSpace(c.Name)
	if name == "" {
		return errors.New("--name must not be empty")
	}
	c.ContactEmail = strings.TrimSpace(c.ContactEmail)
	if c.ContactEmail == "" || kyc.CheckContactEmail(c.ContactEmail) != nil {
		return fmt.Errorf("--contact-email %q must be a bare e-mail address such as compliance@example.com", c.ContactEmail)
	}
	c.AdminEmail = strings.TrimSpace(c.AdminEmail)
	if c.AdminEmail != "" && !kyc.ValidEmail(c.AdminEmail) {
		return fmt.Errorf("--admin-email %q must be a bare e-mail address", c.AdminEmail)
	}
	if !store.IsPostgres(c.DB) {
		if fi, err := os.Stat(c.DB); err == nil && fi.IsDir() {
			return fmt.Errorf("--db %s is a directory, not a database file", c.DB)
		}
	}
	opts := cliOptions()
	opts.MustExist = false
	s, _, err := c.open(e, c.DB, opts, true)
	if err != nil {
		return err
	}
	defer s.Close()
	// Refused before any key file is made next to someone's database.
	if err := s.InTx(e.ctx, func(tx *store.Tx) error { return c.checkEmpty(tx) }); err != nil {
		return err
	}
	if _, _, err := c.secrets(c.DB, e); err != nil {
		return err
	}
	var org *kyc.Organization
	var token, link string
	var admin *kyc.User
	err = s.InTx(store.WithActor(e.ctx, operatorPrincipal()), func(tx *store.Tx) error {
		if err := c.checkEmpty(tx); err != nil {
			return err
		}
		var err error
		if org, err = tx.CreateOrganization(name, c.ContactEmail); err != nil {
			return err
		}
		if c.SandboxKey {
			if _, token, err = tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: org.ID, Environment: kyc.Sandbox, Name: "init"}); err != nil {
				return err
			}
		}
		if c.AdminEmail == "" {
			return nil
		}
		adminName := strings.TrimSpace(c.AdminName)
		if adminName == "" {
			adminName = c.AdminEmail
		}
		svc := c.service(s)
		if admin, link, err = svc.Invite(tx, org.ID, users.InviteInput{Email: c.AdminEmail, Name: adminName, Role: kyc.RoleAdmin}, cliActor); err != nil {
			return err
		}
		admin, err = svc.SetInstallationAdmin(tx, org.ID, admin.ID, true, cliActor)
		return err
	})
	if err != nil {
		return cliError(err)
	}
	fmt.Fprintf(e.stdout, "organization %s\n", org.ID)
	fmt.Fprintf(e.stderr, "kycd: created %s, with the organization %s (%s, contact %s).\n", c.DB, org.ID, org.Name, org.ContactEmail)
	fmt.Fprint(e.stderr, keyStoreNotice(c.DB))
	if token != "" {
		fmt.Fprintf(e.stdout, "sandbox-key %s\n", token)
		fmt.Fprintln(e.stderr, "The sandbox key is shown only this once; store it now (a lost key is revoked and replaced with 'kycd keys create').")
	}
	if admin != nil {
		fmt.Fprintf(e.stdout, "admin-link %s\n", link)
		fmt.Fprintf(e.stderr, "The admin-link sets the password of %s (admin, installation admin); it works once, for %s.\n", admin.Email, users.InviteTTL)
		c.warnLocal(e)
	} else {
		fmt.Fprintf(e.stderr, "Make the first back-office admin with:\n    kycd users create --db %s --org %s --email you@example.com --role admin --installation-admin --base-url https://kyc.example.com\n", c.DB, org.ID)
	}
	fmt.Fprintf(e.stderr, "Start the service with:\n    kycd serve --db %s\n", c.DB)
	return nil
}

// checkEmpty refuses a database that has an organization.
func (c *InitCmd) checkEmpty(tx *store.Tx) error {
	n, err := tx.CountOrganizations()
	if err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%s is already set up (%d organization(s)): kycd init changed nothing; add an organization with kycd orgs create, a user with kycd users create", c.DB, n)
	}
	return nil
}

// keyStoreNotice tells the operator where the per-applicant keys are, that
// they must be backed up as well as the database, and what losing them
// means (docs/personal-data.md): the database's backups never hold them
// on SQLite, so a backup without a copy of <db>.keys cannot open any
// applicant's images or document details.
func keyStoreNotice(db string) string {
	if store.IsPostgres(db) {
		return "The per-applicant keys (crypto-shredding) are in the database itself, table subject_keys: your PostgreSQL\n" +
			"backups hold them, so an erased applicant's data stays readable in backups made before the erasure until\n" +
			"those backups expire. Expire them as your erasure duty requires.\n"
	}
	return "kycd: created " + db + ".keys, the per-applicant key store: each applicant's images, selfies, liveness frames and\n" +
		"document details are sealed under a key kept only in that file, never in the database, its WAL, kycd backup\n" +
		"copies or replicas, so that erasing an applicant destroys their key and every copy at once.\n" +
		"Back up " + db + ".keys as well as the database (with the master key, apart from the database's backups).\n" +
		"If it is lost, every applicant's images and document details in the database and in all its backups are\n" +
		"lost for good (names and statuses stay), and kycd serve refuses to start. A copy of it made before an\n" +
		"erasure brings that applicant's data back with an old backup: keep copies only as long as you must (a few days).\n"
}
