// Package users is the back office's people: users of an organization
// with a role, their passwords (argon2id, with a common-password check),
// one-time set-password links, optional TOTP second factors, sign-in
// throttling and sessions. The console and the CLI use it; every change
// it makes is written to the audit log with the person who made it.
package users

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/alexedwards/argon2id"

	"kycd/kyc"
	"kycd/store"
)

// Session and link lifetimes.
const (
	// SessionIdle ends a session nobody used for this long.
	SessionIdle = 30 * time.Minute
	// SessionAbsolute ends every session this long after sign-in.
	SessionAbsolute = 12 * time.Hour
	// SecondFactorTime is how long the step between the password and the
	// second factor (or its set-up, when the organization requires one) may take.
	SecondFactorTime = 10 * time.Minute
	// touchEvery: a session's last activity is written at most this often,
	// so that reading pages does not write on every request. The idle
	// timeout is thus exact to within a minute.
	touchEvery = time.Minute
	// InviteTTL is how long a set-password link works.
	InviteTTL = 72 * time.Hour
)

// Throttling of failed sign-ins: per account (the e-mail address typed,
// whether or not it exists, so that throttling reveals nothing) and per
// client address. Attempts are refused until the oldest failure in the
// window leaves it.
const (
	AccountFailures = 5
	AddressFailures = 30
	FailureWindow   = 15 * time.Minute
)

// Options are the service's dependencies.
type Options struct {
	Store *store.Store // required
	Log   *slog.Logger
	Now   func() time.Time // default time.Now
	// ConsoleURL is the console's public address, e.g.
	// https://kyc.example.com/console; links in e-mails point there.
	ConsoleURL string
	// Params are the argon2id parameters of new hashes; default HashParams.
	Params *argon2id.Params
}

// Service is the users' use cases.
type Service struct {
	store      *store.Store
	log        *slog.Logger
	now        func() time.Time
	consoleURL string
	params     *argon2id.Params
	slots      chan struct{}
	dummy      func() string // a hash to compare against for unknown accounts
}

// New returns a service; it panics without a store.
func New(o Options) *Service {
	if o.Store == nil {
		panic("users: nil Store")
	}
	s := &Service{store: o.Store, log: o.Log, now: o.Now, consoleURL: strings.TrimRight(o.ConsoleURL, "/"), params: o.Params,
		slots: make(chan struct{}, hashSlots())}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.params == nil {
		s.params = HashParams
	}
	s.dummy = sync.OnceValue(func() string {
		h, err := argon2id.CreateHash(rand.Text(), s.params)
		if err != nil {
			panic(err) // only crypto/rand can fail here, and it does not
		}
		return h
	})
	return s
}

// Actor is who makes a change: a signed-in user, or the operator at the
// command line.
type Actor struct {
	Type kyc.ActorType // ActorUser, or ActorSystem for the CLI
	ID   string        // usr_…, or "cli"
}

// UserActor is the actor of a user's own actions.
func UserActor(u *kyc.User) Actor { return Actor{Type: kyc.ActorUser, ID: u.ID} }

// orgEnvironment is the audit log's environment of organization-wide
// actions (people, sign-in), which belong to neither environment.
const orgEnvironment kyc.Environment = "none"

// Audit writes one audit row for a back-office action.
func Audit(tx *store.Tx, orgID string, env kyc.Environment, actor Actor, action, resourceType, resourceID string, reason string) error {
	id := actor.ID
	var r *string
	if reason != "" {
		r = &reason
	}
	if env == "" {
		env = orgEnvironment
	}
	return tx.AppendAudit(store.AuditEntry{OrganizationID: orgID, Environment: env, ResourceType: resourceType, ResourceID: resourceID,
		Action: action, ActorType: actor.Type, ActorID: &id, Reason: r})
}

// SetPasswordURL is the one-time link for token.
func (s *Service) SetPasswordURL(token string) string {
	return s.consoleURL + "/set-password?token=" + url.QueryEscape(token)
}

// InviteInput is a new user.
type InviteInput struct {
	Email, Name string
	Role        kyc.Role
}

// Validate returns every problem with the input.
func (in *InviteInput) Validate() []kyc.FieldError {
	var errs []kyc.FieldError
	in.Email, in.Name = strings.TrimSpace(in.Email), strings.TrimSpace(in.Name)
	if !kyc.ValidEmail(in.Email) {
		errs = append(errs, kyc.FieldError{Field: "email", Message: "must be an e-mail address such as jane@example.com"})
	}
	if in.Name == "" || len([]rune(in.Name)) > 100 || strings.ContainsAny(in.Name, "\r\n\t") {
		errs = append(errs, kyc.FieldError{Field: "name", Message: "must be 1 to 100 characters on one line"})
	}
	if !in.Role.Valid() {
		errs = append(errs, kyc.FieldError{Field: "role", Message: "must be admin, reviewer, analyst or viewer"})
	}
	return errs
}

// Invite creates a user of the organization and a one-time link with
// which they set their password; the link is e-mailed to them (through
// the outbox) and returned for the caller to show, or "" when the caller
// may not see it (see mayShowLink): an admin's link goes to them alone.
func (s *Service) Invite(tx *store.Tx, orgID string, in InviteInput, actor Actor) (*kyc.User, string, error) {
	if errs := in.Validate(); len(errs) > 0 {
		return nil, "", kyc.Invalid(errs...)
	}
	u, err := tx.CreateUser(orgID, in.Email, in.Name, in.Role)
	if err != nil {
		return nil, "", err
	}
	link, err := s.issueLink(tx, u, "You have been invited to the kycd back office")
	if err != nil {
		return nil, "", err
	}
	shown := mayShowLink(actor, u)
	if !shown {
		link = ""
	}
	return u, link, Audit(tx, orgID, "", actor, "user.invited", "user", u.ID, fmt.Sprintf("%s <%s> as %s; %s", u.Name, u.Email, u.Role, linkNote(shown)))
}

// ResetLink issues a new one-time set-password link for an existing user
// (an admin's "send a new link", the operator's kycd users link), e-mails
// it to the user and returns it when the caller may see it ("" otherwise,
// see mayShowLink). Earlier links stop working; the password and the
// second factor stay until the link is used.
func (s *Service) ResetLink(tx *store.Tx, orgID, userID string, actor Actor) (string, error) {
	u, err := tx.FindUser(orgID, userID)
	if err != nil {
		return "", err
	}
	if u.DisabledAt != nil {
		return "", kyc.Errorf(kyc.EUnprocessable, "%s is disabled; enable the account first.", u.Name)
	}
	link, err := s.issueLink(tx, u, "Set your kycd back-office password")
	if err != nil {
		return "", err
	}
	shown := mayShowLink(actor, u)
	if !shown {
		link = ""
	}
	return link, Audit(tx, orgID, "", actor, "user.password_link", "user", u.ID, linkNote(shown))
}

// mayShowLink says whether actor may see the set-password link of u, i.e.
// hold a credential of u. The operator at the command line may (they own
// the machine). A console user may only for a user who is not an admin
// and has never set a password (an invitation not yet accepted): a link
// for an admin would hand one admin another's account (an organization
// admin became an installation admin that way, issue 23), and a link that
// replaces a password someone chose would let an admin take over any
// account by demoting it first. Those links reach their owner by e-mail
// only.
func mayShowLink(actor Actor, u *kyc.User) bool {
	if actor.Type == kyc.ActorSystem || actor.Type == kyc.ActorOperator {
		return true
	}
	return actor.Type == kyc.ActorUser && u.Role != kyc.RoleAdmin && !u.PasswordSet
}

func linkNote(shown bool) string {
	if shown {
		return "link e-mailed and shown to the actor"
	}
	return "link e-mailed to the user only"
}

func (s *Service) issueLink(tx *store.Tx, u *kyc.User, subject string) (string, error) {
	token, err := tx.IssueUserToken(u.ID, store.TokenSetPassword, InviteTTL)
	if err != nil {
		return "", err
	}
	link := s.SetPasswordURL(token)
	body := fmt.Sprintf("Hello %s,\n\nset your password for the kycd back office here (the link works once, until %s UTC):\n\n%s\n\n"+
		"Your role: %s. If you did not expect this message, ignore it.\n", u.Name, tx.Now().Add(InviteTTL).UTC().Format("2 January 2006 15:04"), link, u.Role)
	if err := tx.QueueEmail(u.OrganizationID, u.Email, subject, body); err != nil {
		return "", err
	}
	return link, nil
}

// hash runs argon2id in one of the bounded slots.
func (s *Service) hash(ctx context.Context, pw string) (string, error) {
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-s.slots }()
	return argon2id.CreateHash(pw, s.params)
}

// compare checks pw against hash in one of the bounded slots. An empty
// hash (unknown account, no password yet) is compared against a dummy, so
// that the answer takes as long as for a real account.
func (s *Service) compare(ctx context.Context, pw, hash string) (bool, error) {
	real := hash != ""
	if !real {
		hash = s.dummy()
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-s.slots }()
	ok, err := argon2id.ComparePasswordAndHash(pw, hash)
	if err != nil {
		return false, fmt.Errorf("compare password: %w", err)
	}
	return ok && real, nil
}

// passwordInputs are the words a user's password must not be built from.
func (s *Service) passwordInputs(ctx context.Context, u *kyc.User) []string {
	in := []string{u.Email, u.Name}
	if local, _, ok := strings.Cut(u.Email, "@"); ok {
		in = append(in, local)
	}
	if o, err := s.store.FindOrganization(ctx, u.OrganizationID); err == nil {
		in = append(in, o.Name)
	}
	return in
}

// TokenUser returns the user a valid set-password link belongs to.
func (s *Service) TokenUser(ctx context.Context, token string) (*kyc.User, error) {
	return s.store.FindUserByToken(ctx, token, store.TokenSetPassword, s.now())
}

// SetPassword sets a password through a one-time link (the link stops
// working) and ends the user's sessions. confirm must equal pw.
func (s *Service) SetPassword(ctx context.Context, token, pw, confirm string) (*kyc.User, error) {
	u, err := s.TokenUser(ctx, token)
	if err != nil {
		return nil, err
	}
	if errs := s.checkNew(ctx, u, pw, confirm); errs != nil {
		return nil, errs
	}
	h, err := s.hash(ctx, pw)
	if err != nil {
		return nil, err
	}
	err = s.store.InTx(ctx, func(tx *store.Tx) error {
		if u, err = tx.UseUserToken(token, store.TokenSetPassword); err != nil {
			return err
		}
		if err := tx.SetPasswordHash(u.ID, h, nil); err != nil {
			return err
		}
		if err := s.tellPasswordSet(tx, u); err != nil {
			return err
		}
		return Audit(tx, u.OrganizationID, "", UserActor(u), "user.password_set", "user", u.ID, "through a one-time link")
	})
	return u, err
}

// tellPasswordSet e-mails u that a link set their password, so that a
// reset they did not ask for does not go unnoticed. The second factor, if
// on, stays: a link replaces the password, never the second step.
func (s *Service) tellPasswordSet(tx *store.Tx, u *kyc.User) error {
	subject, what := "Your kycd back-office password was set", "set"
	if u.PasswordSet {
		subject, what = "Your kycd back-office password was reset", "reset"
	}
	body := fmt.Sprintf("Hello %s,\n\nyour password for the kycd back office was %s through a one-time link on %s UTC. "+
		"Your other sessions were ended.", u.Name, what, tx.Now().UTC().Format("2 January 2006 15:04"))
	if u.TOTPEnabled {
		body += " Two-step sign-in stays on: signing in still asks for a code from your app."
	}
	body += "\n\nIf you did not do this, tell an admin of your organization at once.\n"
	return tx.QueueEmail(u.OrganizationID, u.Email, subject, body)
}

func (s *Service) checkNew(ctx context.Context, u *kyc.User, pw, confirm string) error {
	errs := CheckPassword(pw, s.passwordInputs(ctx, u)...)
	if pw != confirm {
		errs = append(errs, kyc.FieldError{Field: "confirm", Message: "must be the same password again"})
	}
	if len(errs) > 0 {
		return kyc.Invalid(errs...)
	}
	return nil
}

// ChangePassword replaces a signed-in user's password after checking the
// current one; their other sessions end.
func (s *Service) ChangePassword(ctx context.Context, sess *store.Session, current, pw, confirm string) error {
	cred, err := s.store.FindUserByEmail(ctx, sess.User.Email)
	if err != nil {
		return err
	}
	ok, err := s.compare(ctx, current, cred.PasswordHash)
	if err != nil {
		return err
	}
	if !ok {
		return kyc.Invalid(kyc.FieldError{Field: "current", Message: "is not your current password"})
	}
	if err := s.checkNew(ctx, sess.User, pw, confirm); err != nil {
		return err
	}
	h, err := s.hash(ctx, pw)
	if err != nil {
		return err
	}
	return s.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.SetPasswordHash(sess.User.ID, h, sess.IDHash); err != nil {
			return err
		}
		return Audit(tx, sess.User.OrganizationID, "", UserActor(sess.User), "user.password_changed", "user", sess.User.ID, "")
	})
}

// UpdateInput is an admin's change to a user; nil fields stay.
type UpdateInput struct {
	Role     *kyc.Role
	Disabled *bool
	// Senior lets a reviewer work escalated cases; only a reviewer can
	// hold it (an admin works them anyway).
	Senior *bool
}

// Update changes another user's role or enables or disables them; a
// disabled user's sessions end at once. An admin cannot disable or demote
// themselves, and an organization keeps at least one enabled admin.
func (s *Service) Update(tx *store.Tx, orgID, userID string, in UpdateInput, actor Actor) (*kyc.User, error) {
	if in.Role != nil && !in.Role.Valid() {
		return nil, kyc.Invalid(kyc.FieldError{Field: "role", Message: "must be admin, reviewer, analyst or viewer"})
	}
	before, err := tx.FindUser(orgID, userID)
	if err != nil {
		return nil, err
	}
	if err := mayChangeInstallationAdmin(tx, orgID, before, actor); err != nil {
		return nil, err
	}
	if actor.ID == userID && (in.Disabled != nil && *in.Disabled || in.Role != nil && *in.Role != kyc.RoleAdmin) {
		return nil, kyc.Errorf(kyc.EUnprocessable, "You cannot disable yourself or take away your own admin role; ask another admin.")
	}
	if in.Senior != nil && *in.Senior {
		role := before.Role
		if in.Role != nil {
			role = *in.Role
		}
		if role != kyc.RoleReviewer {
			return nil, kyc.Invalid(kyc.FieldError{Field: "senior", Message: "only a reviewer can be a senior reviewer (admins work escalated cases anyway)"})
		}
	}
	u, err := tx.UpdateUser(orgID, userID, store.UserUpdate{Role: in.Role, Disabled: in.Disabled, Senior: in.Senior})
	if err != nil {
		return nil, err
	}
	if before.Role == kyc.RoleAdmin && (u.Role != kyc.RoleAdmin || u.DisabledAt != nil) {
		n, err := tx.CountActiveAdmins(orgID)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, kyc.Errorf(kyc.EUnprocessable, "The organization must keep at least one enabled admin.")
		}
	}
	var changes []string
	if before.Role != u.Role {
		changes = append(changes, fmt.Sprintf("role %s → %s", before.Role, u.Role))
	}
	if before.Senior != u.Senior {
		changes = append(changes, map[bool]string{true: "senior reviewer (works escalated cases)", false: "no longer a senior reviewer"}[u.Senior])
	}
	if before.InstallationAdmin && !u.InstallationAdmin {
		changes = append(changes, "installation admin revoked (no longer an admin)")
	}
	if (before.DisabledAt == nil) != (u.DisabledAt == nil) {
		changes = append(changes, map[bool]string{true: "disabled (sessions ended)", false: "enabled"}[u.DisabledAt != nil])
	}
	if len(changes) == 0 {
		return u, nil
	}
	return u, Audit(tx, orgID, "", actor, "user.updated", "user", u.ID, strings.Join(changes, "; "))
}

// mayChangeInstallationAdmin refuses a console change (role, disabled) of
// an installation admin by someone who is not one: demoting or disabling
// would take away the flag that only the operator grants, so an
// organization admin could lock the installation's admins out. The
// operator (CLI) and other installation admins may.
func mayChangeInstallationAdmin(tx *store.Tx, orgID string, target *kyc.User, actor Actor) error {
	if !target.InstallationAdmin || actor.Type == kyc.ActorSystem || actor.Type == kyc.ActorOperator {
		return nil
	}
	if actor.Type == kyc.ActorUser {
		by, err := tx.FindUser(orgID, actor.ID)
		if err != nil && kyc.ErrorCode(err) != kyc.ENotFound {
			return err
		}
		if by != nil && by.InstallationAdmin {
			return nil
		}
	}
	return kyc.Errorf(kyc.EForbidden, "%s is an installation admin: only another installation admin, or whoever runs kycd on the server, can change their role or disable them.", target.Name)
}

// SetInstallationAdmin grants (on) or revokes a user's installation-admin
// flag: an admin with it may change the installation's watch lists. Only
// the machine's operator calls this (kycd users installation-admin); the
// console cannot. UNPROCESSABLE for a user who is not an admin.
func (s *Service) SetInstallationAdmin(tx *store.Tx, orgID, userID string, on bool, actor Actor) (*kyc.User, error) {
	before, err := tx.FindUser(orgID, userID)
	if err != nil {
		return nil, err
	}
	u, err := tx.SetInstallationAdmin(orgID, userID, on)
	if err != nil || before.InstallationAdmin == on {
		return u, err // nothing changed: nothing to audit
	}
	action := map[bool]string{true: "user.installation_admin_granted", false: "user.installation_admin_revoked"}[on]
	return u, Audit(tx, orgID, "", actor, action, "user", u.ID, u.Email)
}

// SetRequireTOTP makes a second factor mandatory (or optional) for the
// organization's users. Users without one are asked to set it up at their
// next sign-in.
func (s *Service) SetRequireTOTP(tx *store.Tx, orgID string, on bool, actor Actor) error {
	if err := tx.SetRequireTOTP(orgID, on); err != nil {
		return err
	}
	return Audit(tx, orgID, "", actor, "organization.require_totp", "organization", orgID, map[bool]string{true: "on", false: "off"}[on])
}
