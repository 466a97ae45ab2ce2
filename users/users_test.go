package users_test

import (
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/argon2id"
	"github.com/pquerna/otp/totp"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
	"kycd/users"
)

var cheap = &argon2id.Params{Memory: 1024, Iterations: 1, Parallelism: 1, SaltLength: 16, KeyLength: 32}

func TestCheckPassword(t *testing.T) {
	for _, tt := range []struct {
		pw   string
		ok   bool
		want string // part of the message
	}{
		{"short", false, "at least 12"},
		{"password1234", false, "commonly used password"},
		{"qwertyuiop123", false, ""},
		{"aaaaaaaaaaaaaaaa", false, "repeats"},
		{"abcdefghijklmnop", false, "sequence"},
		{"jane.doe@acme.example!", false, "must not contain your e-mail"},
		{"Acme Ltd 2026 Acme Ltd", false, "must not contain"},
		{"iloveyou12345678", false, ""},
		{"Password123456", false, "commonly used password"},
		{"plover quartz meadow 7391", true, ""},
		{"Vz8#kq2!Lm0@wP4", true, ""},
		{strings.Repeat("x", 257), false, "at most 256"},
		{"otter-lantern-basalt-fjord-9", true, ""},
	} {
		errs := users.CheckPassword(tt.pw, "jane.doe@acme.example", "Jane Doe", "Acme Ltd")
		if (len(errs) == 0) != tt.ok {
			t.Errorf("CheckPassword(%q) = %v, want ok=%v", tt.pw, errs, tt.ok)
			continue
		}
		if tt.want != "" && (len(errs) == 0 || !strings.Contains(errs[0].Message, tt.want)) {
			t.Errorf("CheckPassword(%q) = %v, want a message with %q", tt.pw, errs, tt.want)
		}
	}
}

// TestHashParams: new hashes are argon2id with the documented parameters.
func TestHashParams(t *testing.T) {
	h, err := argon2id.CreateHash("plover quartz meadow 7391", users.HashParams)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=2,p=2$") {
		t.Errorf("hash %q", h)
	}
}

type fixture struct {
	t     *testing.T
	st    *store.Store
	clock *storetest.Clock
	svc   *users.Service
	org   storetest.Org
}

func newFixture(t *testing.T) *fixture {
	st := storetest.Open(t)
	clock := &storetest.Clock{}
	st.Now = clock.Now
	f := &fixture{t: t, st: st, clock: clock, org: storetest.MustOrg(t, st, "acme", nil)}
	f.svc = users.New(users.Options{Store: st, Now: clock.Now, ConsoleURL: "https://kyc.example/console", Params: cheap})
	return f
}

const goodPassword = "plover quartz meadow 7391"

func (f *fixture) user(email string, role kyc.Role) *kyc.User {
	f.t.Helper()
	var link string
	var u *kyc.User
	err := f.st.InTx(f.t.Context(), func(tx *store.Tx) (err error) {
		u, link, err = f.svc.Invite(tx, f.org.ID, users.InviteInput{Email: email, Name: "Test " + string(role), Role: role}, users.Actor{Type: kyc.ActorSystem, ID: "test"})
		return err
	})
	if err != nil {
		f.t.Fatal(err)
	}
	if !strings.HasPrefix(link, "https://kyc.example/console/set-password?token=") {
		f.t.Fatalf("link %q", link)
	}
	token := link[strings.Index(link, "token=")+6:]
	if _, err := f.svc.SetPassword(f.t.Context(), token, goodPassword, goodPassword); err != nil {
		f.t.Fatal(err)
	}
	// The link works once.
	if _, err := f.svc.SetPassword(f.t.Context(), token, goodPassword+"x", goodPassword+"x"); kyc.ErrorCode(err) != kyc.ENotFound {
		f.t.Fatalf("second use of the link: %v, want NOT_FOUND", err)
	}
	return u
}

// TestLoginThrottle: five wrong passwords lock the account (even a right
// password is refused then, without being checked) until the first
// failure is 15 minutes old; the address limit applies across accounts;
// an unknown address is throttled the same way, so throttling tells
// nothing about which accounts exist.
func TestLoginThrottle(t *testing.T) {
	f := newFixture(t)
	u := f.user("jane@acme.example", kyc.RoleReviewer)
	ctx := t.Context()
	for i := 0; i < users.AccountFailures; i++ {
		if _, err := f.svc.Login(ctx, u.Email, "wrong password 12345", "198.51.100.1", "test"); err != users.ErrBadCredentials {
			t.Fatalf("attempt %d: %v, want bad credentials", i, err)
		}
		f.clock.Advance(time.Minute)
	}
	if _, err := f.svc.Login(ctx, strings.ToUpper(u.Email), goodPassword, "198.51.100.2", "test"); kyc.ErrorCode(err) != kyc.ERateLimited {
		t.Fatalf("right password while locked: %v, want RATE_LIMITED", err)
	}
	f.clock.Advance(users.FailureWindow - 4*time.Minute)
	if _, err := f.svc.Login(ctx, u.Email, goodPassword, "198.51.100.2", "test"); err != nil {
		t.Fatalf("after the window: %v", err)
	}

	for i := 0; i < users.AccountFailures; i++ {
		_, _ = f.svc.Login(ctx, "nobody@acme.example", "wrong password 12345", "198.51.100.3", "test")
	}
	if _, err := f.svc.Login(ctx, "nobody@acme.example", "anything at all 123", "198.51.100.4", "test"); kyc.ErrorCode(err) != kyc.ERateLimited {
		t.Fatalf("unknown account after 5 failures: %v, want RATE_LIMITED like a real one", err)
	}

	for i := 0; i < users.AddressFailures; i++ {
		_, _ = f.svc.Login(ctx, "guess"+string(rune('a'+i%26))+string(rune('a'+i/26))+"@acme.example", "wrong password 12345", "198.51.100.9", "test")
	}
	if _, err := f.svc.Login(ctx, u.Email, goodPassword, "198.51.100.9", "test"); kyc.ErrorCode(err) != kyc.ERateLimited {
		t.Fatalf("address over its limit: %v, want RATE_LIMITED", err)
	}
}

// TestSessionTimeouts: idle 30 minutes ends a session, activity keeps it,
// and 12 hours end it whatever the activity; disabling the user ends it
// at once.
func TestSessionTimeouts(t *testing.T) {
	f := newFixture(t)
	u := f.user("jane@acme.example", kyc.RoleReviewer)
	ctx := t.Context()
	in, err := f.svc.Login(ctx, u.Email, goodPassword, "198.51.100.1", "test")
	if err != nil || in.Stage != store.StageFull {
		t.Fatalf("login: %v %v", in, err)
	}
	for i := 0; i < 30; i++ { // 29 minutes apart for 14.5 hours
		f.clock.Advance(29 * time.Minute)
		_, err := f.svc.Session(ctx, in.Token)
		if i*29+29 < 12*60 && err != nil {
			t.Fatalf("active session after %d min: %v", (i+1)*29, err)
		}
		if i*29+29 >= 12*60 {
			if err != users.ErrNoSession {
				t.Fatalf("session after %d min: %v, want ended (absolute 12 h)", (i+1)*29, err)
			}
			break
		}
	}
	in, _ = f.svc.Login(ctx, u.Email, goodPassword, "198.51.100.1", "test")
	f.clock.Advance(users.SessionIdle)
	if _, err := f.svc.Session(ctx, in.Token); err != users.ErrNoSession {
		t.Fatalf("idle 30 min: %v, want ended", err)
	}
	in, _ = f.svc.Login(ctx, u.Email, goodPassword, "198.51.100.1", "test")
	admin := f.user("ada@acme.example", kyc.RoleAdmin)
	disabled := true
	if err := f.st.InTx(ctx, func(tx *store.Tx) error {
		_, err := f.svc.Update(tx, f.org.ID, u.ID, users.UpdateInput{Disabled: &disabled}, users.UserActor(admin))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Session(ctx, in.Token); err != users.ErrNoSession {
		t.Fatalf("disabled user's session: %v, want ended", err)
	}
	if _, err := f.svc.Login(ctx, u.Email, goodPassword, "198.51.100.1", "test"); err != users.ErrBadCredentials {
		t.Fatalf("disabled user signs in: %v, want the same answer as a wrong password", err)
	}
}

// TestTOTP: enrolment needs a right code; then sign-in stops at the
// second factor, a wrong or reused code is refused, a right one rotates
// the session into a full one; an organization that requires TOTP sends
// users without it to set-up first.
func TestTOTP(t *testing.T) {
	f := newFixture(t)
	u := f.user("jane@acme.example", kyc.RoleReviewer)
	ctx := t.Context()
	in, err := f.svc.Login(ctx, u.Email, goodPassword, "198.51.100.1", "test")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := f.svc.Session(ctx, in.Token)
	if err != nil {
		t.Fatal(err)
	}
	enr, err := f.svc.NewEnrolment(sess.User)
	if err != nil || !strings.HasPrefix(enr.URL, "otpauth://totp/kycd:jane@acme.example?") || !strings.HasPrefix(enr.QRCode, "data:image/png;base64,") {
		t.Fatalf("enrolment %+v %v", enr, err)
	}
	if _, err := f.svc.EnableTOTP(ctx, sess, enr.Secret, "000000", "198.51.100.1", "test"); err != users.ErrBadCode {
		t.Fatalf("wrong enrolment code: %v", err)
	}
	code, _ := totp.GenerateCode(enr.Secret, f.clock.Now())
	if _, err := f.svc.EnableTOTP(ctx, sess, enr.Secret, code, "198.51.100.1", "test"); err != nil {
		t.Fatal(err)
	}

	f.clock.Advance(time.Minute)
	in, err = f.svc.Login(ctx, u.Email, goodPassword, "198.51.100.1", "test")
	if err != nil || in.Stage != store.StageTOTP {
		t.Fatalf("login with TOTP on: %+v %v, want stage totp", in, err)
	}
	half, _ := f.svc.Session(ctx, in.Token)
	if _, err := f.svc.SecondFactor(ctx, half, "123456", "198.51.100.1", "test"); err != users.ErrBadCode {
		t.Fatalf("wrong code: %v", err)
	}
	code, _ = totp.GenerateCode(enr.Secret, f.clock.Now())
	full, err := f.svc.SecondFactor(ctx, half, code, "198.51.100.1", "test")
	if err != nil || full == in.Token {
		t.Fatalf("right code: %q %v (must be a new session id)", full, err)
	}
	if _, err := f.svc.Session(ctx, in.Token); err != users.ErrNoSession {
		t.Errorf("the half session lives on after rotation: %v", err)
	}
	// The same code a second time (another sign-in within 30 s) fails.
	in2, _ := f.svc.Login(ctx, u.Email, goodPassword, "198.51.100.1", "test")
	half2, _ := f.svc.Session(ctx, in2.Token)
	if _, err := f.svc.SecondFactor(ctx, half2, code, "198.51.100.1", "test"); err != users.ErrBadCode {
		t.Errorf("replayed code: %v, want refused", err)
	}

	// Required by the organization: a user without it must enrol first.
	other := f.user("ben@acme.example", kyc.RoleAnalyst)
	if err := f.st.InTx(ctx, func(tx *store.Tx) error { return f.svc.SetRequireTOTP(tx, f.org.ID, true, users.UserActor(u)) }); err != nil {
		t.Fatal(err)
	}
	in3, err := f.svc.Login(ctx, other.Email, goodPassword, "198.51.100.1", "test")
	if err != nil || in3.Stage != store.StageEnrol {
		t.Fatalf("required TOTP, none set: %+v %v, want stage enrol", in3, err)
	}
	s3, _ := f.svc.Session(ctx, in3.Token)
	enr3, _ := f.svc.NewEnrolment(s3.User)
	code3, _ := totp.GenerateCode(enr3.Secret, f.clock.Now())
	tok, err := f.svc.EnableTOTP(ctx, s3, enr3.Secret, code3, "198.51.100.1", "test")
	if err != nil || tok == "" {
		t.Fatalf("enrol under requirement: %q %v, want a new full session", tok, err)
	}
	if s, err := f.svc.Session(ctx, tok); err != nil || s.Stage != store.StageFull {
		t.Fatalf("after enrolment: %+v %v", s, err)
	}
	if err := f.svc.DisableTOTP(ctx, s3, code3); kyc.ErrorCode(err) != kyc.EUnprocessable {
		t.Errorf("turning off a required second factor: %v, want UNPROCESSABLE", err)
	}
}

// TestLastAdmin: an organization keeps one enabled admin; admins cannot
// disable or demote themselves.
func TestLastAdmin(t *testing.T) {
	f := newFixture(t)
	a := f.user("ada@acme.example", kyc.RoleAdmin)
	b := f.user("bob@acme.example", kyc.RoleAdmin)
	ctx := t.Context()
	viewer := kyc.RoleViewer
	err := f.st.InTx(ctx, func(tx *store.Tx) error {
		_, err := f.svc.Update(tx, f.org.ID, a.ID, users.UpdateInput{Role: &viewer}, users.UserActor(a))
		return err
	})
	if kyc.ErrorCode(err) != kyc.EUnprocessable {
		t.Errorf("demote oneself: %v", err)
	}
	if err := f.st.InTx(ctx, func(tx *store.Tx) error {
		_, err := f.svc.Update(tx, f.org.ID, b.ID, users.UpdateInput{Role: &viewer}, users.UserActor(a))
		return err
	}); err != nil {
		t.Fatalf("demote the other admin: %v", err)
	}
	off := true
	err = f.st.InTx(ctx, func(tx *store.Tx) error {
		_, err := f.svc.Update(tx, f.org.ID, a.ID, users.UpdateInput{Disabled: &off}, users.Actor{Type: kyc.ActorSystem, ID: "cli"})
		return err
	})
	if kyc.ErrorCode(err) != kyc.EUnprocessable {
		t.Errorf("disable the last admin: %v, want UNPROCESSABLE", err)
	}
}

// TestInstallationAdmin: the operator grants and revokes the flag (each
// audited once, a repeat is not); an organization admin cannot demote an
// installation admin; another installation admin who demotes one loses
// them the flag, and the audit says so.
func TestInstallationAdmin(t *testing.T) {
	f := newFixture(t)
	a := f.user("ada@acme.example", kyc.RoleAdmin)
	b := f.user("bob@acme.example", kyc.RoleAdmin)
	cli := users.Actor{Type: kyc.ActorSystem, ID: "cli"}
	set := func(id string, on bool) *kyc.User {
		t.Helper()
		var u *kyc.User
		if err := f.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
			u, err = f.svc.SetInstallationAdmin(tx, f.org.ID, id, on, cli)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return u
	}
	if u := set(b.ID, true); !u.Can(kyc.PermInstallation) {
		t.Fatalf("after the grant: %+v", u)
	}
	set(b.ID, true) // again: nothing changes, nothing audited
	viewer := kyc.RoleViewer
	demote := func(by *kyc.User) error {
		return f.st.InTx(t.Context(), func(tx *store.Tx) error {
			_, err := f.svc.Update(tx, f.org.ID, b.ID, users.UpdateInput{Role: &viewer}, users.UserActor(by))
			return err
		})
	}
	// An organization admin cannot demote (nor disable) an installation
	// admin: the flag, which only the operator grants, would go.
	if err := demote(a); kyc.ErrorCode(err) != kyc.EForbidden {
		t.Fatalf("an organization admin demotes an installation admin: %v, want FORBIDDEN", err)
	}
	set(a.ID, true)
	if err := demote(a); err != nil {
		t.Fatal(err)
	}
	rows, err := f.st.FindAudit(t.Context(), b.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Action+": "+deref(r.Reason))
	}
	want := "user.invited: Test admin <bob@acme.example> as admin; link e-mailed and shown to the actor|user.password_set: through a one-time link|user.installation_admin_granted: bob@acme.example|" +
		"user.updated: role admin → viewer; installation admin revoked (no longer an admin)"
	if strings.Join(got, "|") != want {
		t.Errorf("audit:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
