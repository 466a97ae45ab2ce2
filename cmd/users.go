package cmd

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"text/tabwriter"

	"kycd/kyc"
	"kycd/store"
	"kycd/users"
)

// UsersCmd groups the back-office user commands.
type UsersCmd struct {
	Create  UsersCreateCmd  `cmd:"" help:"Create a back-office user and print their one-time set-password link."`
	List    UsersListCmd    `cmd:"" help:"List an organization's back-office users."`
	Disable UsersDisableCmd `cmd:"" help:"Disable a user (their sessions end at once)."`
	Enable  UsersEnableCmd  `cmd:"" help:"Enable a disabled user."`
	Link    UsersLinkCmd    `cmd:"" help:"Print a new one-time set-password link for a user (a forgotten password)."`
	// Installation admins are made here only: whoever runs kycd commands
	// on the machine owns the installation; an organization's admin in the
	// console does not.
	InstallationAdmin UsersInstallationAdminCmd `cmd:"" name:"installation-admin" help:"Let an admin change what the whole installation shares (the console's Watch lists page), or with --revoke stop it."`
}

// consoleFlag is where links point: the console's public address.
type consoleFlag struct {
	BaseURL string `name:"base-url" env:"KYCD_BASE_URL" default:"http://127.0.0.1:8080" help:"Public URL of kycd (serve's --base-url); links point to <base-url>/console. The default works only in a browser on this machine."`
}

func (c consoleFlag) service(s *store.Store) *users.Service {
	return users.New(users.Options{Store: s, ConsoleURL: strings.TrimRight(c.BaseURL, "/") + "/console"})
}

// warnLocal tells the operator, on standard error, when the link just
// printed points to a loopback address (the default): it opens only in a
// browser on this machine, and a user who gets it elsewhere (the e-mail)
// finds nothing there.
func (c consoleFlag) warnLocal(e *env) {
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return
	}
	fmt.Fprintf(e.stderr, "kycd: warning: the link points to %s, so it works only in a browser on this machine. "+
		"Give kycd's public address with --base-url https://kyc.example.com (or KYCD_BASE_URL), as serve's --base-url, to make a link that works elsewhere.\n",
		u.Host)
}

// cliActor is the audit log's actor of operator commands.
var cliActor = users.Actor{Type: kyc.ActorSystem, ID: "cli"}

// UsersCreateCmd creates a user.
type UsersCreateCmd struct {
	dbFlag
	masterKeyFlag
	consoleFlag
	Org   string `required:"" help:"org_<ulid> the user belongs to."`
	Email string `required:"" help:"The user's e-mail address (their sign-in name)."`
	Name  string `help:"The user's name (default: the e-mail address)."`
	Role  string `required:"" enum:"admin,reviewer,analyst,viewer" help:"admin, reviewer, analyst or viewer."`
	// InstallationAdmin makes the new admin an installation admin at once.
	InstallationAdmin bool `name:"installation-admin" help:"Also make the user an installation admin: they may import watch lists in the console for every organization (admins only)."`
}

// Run creates the user and prints the one-time link; the link is also
// queued as an e-mail (sent when serve has --smtp-host).
func (c *UsersCreateCmd) Run(e *env) error {
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	name := c.Name
	if strings.TrimSpace(name) == "" {
		name = c.Email
	}
	svc := c.service(s)
	var u *kyc.User
	var link string
	if c.InstallationAdmin && kyc.Role(c.Role) != kyc.RoleAdmin {
		return fmt.Errorf("--installation-admin is for admins only (--role admin), not %s", c.Role)
	}
	err = s.InTx(e.ctx, func(tx *store.Tx) (err error) {
		u, link, err = svc.Invite(tx, c.Org, users.InviteInput{Email: c.Email, Name: name, Role: kyc.Role(c.Role)}, cliActor)
		if err != nil || !c.InstallationAdmin {
			return err
		}
		u, err = svc.SetInstallationAdmin(tx, c.Org, u.ID, true, cliActor)
		return err
	})
	if err != nil {
		return cliError(err)
	}
	role := string(u.Role)
	if u.InstallationAdmin {
		role += ", installation admin"
	}
	fmt.Fprintf(e.stderr, "Created %s (%s, %s). The link below sets their password; it works once, for %s, and was also queued as an e-mail:\n",
		u.ID, u.Email, role, users.InviteTTL)
	fmt.Fprintln(e.stdout, link)
	c.warnLocal(e)
	return nil
}

// cliError adds the fields of a validation error to its message.
func cliError(err error) error {
	ke := kyc.AsError(err)
	if ke.Code != kyc.EValidation && ke.Code != kyc.EConflict || len(ke.Details) == 0 {
		return err
	}
	var parts []string
	for _, d := range ke.Details {
		parts = append(parts, "--"+d.Field+" "+d.Message)
	}
	return fmt.Errorf("%s %s", ke.Message, strings.Join(parts, "; "))
}

// UsersListCmd lists users.
type UsersListCmd struct {
	dbFlag
	Org string `required:"" help:"org_<ulid>"`
}

// Run prints one user per line.
func (c *UsersListCmd) Run(e *env) error {
	s, err := openStore(e.ctx, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	list, err := s.FindUsers(e.ctx, c.Org)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tNAME\tROLE\tSTATUS\tTWO-STEP\tLAST SIGN-IN")
	// An installation admin's role reads "admin+installation".
	for _, u := range list {
		status := "active"
		switch {
		case u.DisabledAt != nil:
			status = "disabled"
		case !u.PasswordSet:
			status = "invited"
		}
		last := "-"
		if u.LastLoginAt != nil {
			last = kyc.FormatTime(*u.LastLoginAt)
		}
		role := string(u.Role)
		if u.InstallationAdmin {
			role += "+installation"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\t%s\n", u.ID, u.Email, u.Name, role, status, u.TOTPEnabled, last)
	}
	return tw.Flush()
}

// UsersDisableCmd disables a user.
type UsersDisableCmd struct {
	dbFlag
	masterKeyFlag
	Org    string `required:"" help:"org_<ulid>"`
	UserID string `arg:"" name:"USER_ID" help:"usr_<ulid>"`
}

// Run disables the user; their sessions end in the same transaction.
func (c *UsersDisableCmd) Run(e *env) error {
	return setDisabled(e, c.masterKeyFlag, c.DB, c.Org, c.UserID, true)
}

// UsersEnableCmd enables a user.
type UsersEnableCmd struct {
	dbFlag
	masterKeyFlag
	Org    string `required:"" help:"org_<ulid>"`
	UserID string `arg:"" name:"USER_ID" help:"usr_<ulid>"`
}

// Run enables the user.
func (c *UsersEnableCmd) Run(e *env) error {
	return setDisabled(e, c.masterKeyFlag, c.DB, c.Org, c.UserID, false)
}

func setDisabled(e *env, key masterKeyFlag, db, org, id string, disabled bool) error {
	s, err := key.openAudited(e, db)
	if err != nil {
		return err
	}
	defer s.Close()
	svc := users.New(users.Options{Store: s})
	err = s.InTx(e.ctx, func(tx *store.Tx) error {
		_, err := svc.Update(tx, org, id, users.UpdateInput{Disabled: &disabled}, cliActor)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s %s\n", id, map[bool]string{true: "disabled", false: "enabled"}[disabled])
	return nil
}

// UsersLinkCmd prints a new set-password link.
type UsersLinkCmd struct {
	dbFlag
	masterKeyFlag
	consoleFlag
	Org    string `required:"" help:"org_<ulid>"`
	UserID string `arg:"" name:"USER_ID" help:"usr_<ulid>"`
}

// Run issues the link (earlier ones stop working) and prints it.
func (c *UsersLinkCmd) Run(e *env) error {
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	svc := c.service(s)
	var link string
	err = s.InTx(e.ctx, func(tx *store.Tx) (err error) {
		link, err = svc.ResetLink(tx, c.Org, c.UserID, cliActor)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, link)
	c.warnLocal(e)
	return nil
}

// UsersInstallationAdminCmd grants or revokes the installation-admin flag.
type UsersInstallationAdminCmd struct {
	dbFlag
	masterKeyFlag
	Org    string `required:"" help:"org_<ulid>"`
	UserID string `arg:"" name:"USER_ID" help:"usr_<ulid>; must be an admin."`
	Revoke bool   `help:"Take the flag away instead."`
}

// Run sets the flag (audited) and says what the user may now do.
func (c *UsersInstallationAdminCmd) Run(e *env) error {
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	svc := users.New(users.Options{Store: s})
	var u *kyc.User
	err = s.InTx(e.ctx, func(tx *store.Tx) (err error) {
		u, err = svc.SetInstallationAdmin(tx, c.Org, c.UserID, !c.Revoke, cliActor)
		return err
	})
	if err != nil {
		return err
	}
	if u.InstallationAdmin {
		fmt.Fprintf(e.stdout, "%s (%s) is an installation admin: they may import watch lists in the console (/console/lists) for every organization.\n", u.ID, u.Email)
	} else {
		fmt.Fprintf(e.stdout, "%s (%s) is not an installation admin.\n", u.ID, u.Email)
	}
	return nil
}
