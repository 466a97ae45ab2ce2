package users

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"image/png"
	"math"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"kycd/kyc"
	"kycd/store"
)

// ErrBadCredentials is the one answer for a wrong e-mail address, a wrong
// password, an account without a password yet and a disabled account: a
// sign-in form must not tell which addresses have accounts.
var ErrBadCredentials = &kyc.Error{Code: kyc.EForbidden, Reason: "invalid_credentials",
	Message: "The e-mail address or the password is not right."}

// ErrBadCode is the answer for a wrong, old or reused second-factor code.
var ErrBadCode = &kyc.Error{Code: kyc.EForbidden, Reason: "invalid_code",
	Message: "That code is not right. Type the 6-digit code your authenticator app shows now."}

// throttled is RATE_LIMITED with the wait in the message.
func throttled(wait time.Duration) error {
	minutes := int(math.Ceil(wait.Minutes()))
	return &kyc.Error{Code: kyc.ERateLimited, Reason: "login_throttled",
		Message: fmt.Sprintf("Too many failed sign-ins. Try again in %d minute%s.", minutes, map[bool]string{true: "", false: "s"}[minutes == 1])}
}

// checkThrottle refuses an attempt while subject has too many recent
// failures in scope.
func (s *Service) checkThrottle(ctx context.Context, scope, subject string, limit int) error {
	now := s.now()
	n, oldest, err := s.store.CountLoginFailures(ctx, scope, subject, now.Add(-FailureWindow))
	if err != nil {
		return err
	}
	if n >= limit {
		return throttled(oldest.Add(FailureWindow).Sub(now))
	}
	return nil
}

func accountSubject(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// SignIn is the outcome of a correct password.
type SignIn struct {
	Token string // the new session's cookie value
	Stage store.SessionStage
	User  *kyc.User
}

// Login checks an e-mail address and password and starts a session: a
// full one, or one that still needs the second factor (StageTOTP) or its
// set-up (StageEnrol, when the organization requires one and the user has
// none). Failures count per account and per address; past the limits
// attempts are RATE_LIMITED before any password is checked.
func (s *Service) Login(ctx context.Context, email, password, ip, userAgent string) (*SignIn, error) {
	acct := accountSubject(email)
	if err := s.checkThrottle(ctx, store.ThrottleAddress, ip, AddressFailures); err != nil {
		return nil, err
	}
	if err := s.checkThrottle(ctx, store.ThrottleAccount, acct, AccountFailures); err != nil {
		return nil, err
	}
	cred, err := s.store.FindUserByEmail(ctx, email)
	var hash string
	if err == nil && cred.User.DisabledAt == nil {
		hash = cred.PasswordHash
	} else if err != nil && kyc.ErrorCode(err) != kyc.ENotFound {
		return nil, err
	}
	ok, err := s.compare(ctx, password, hash)
	if err != nil {
		return nil, err
	}
	if !ok {
		err := s.store.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.RecordLoginFailure(store.ThrottleAccount, acct); err != nil {
				return err
			}
			if err := tx.RecordLoginFailure(store.ThrottleAddress, ip); err != nil {
				return err
			}
			if cred == nil {
				return nil
			}
			return Audit(tx, cred.User.OrganizationID, "", UserActor(cred.User), "console.login_failed", "user", cred.User.ID, "wrong password from "+ip)
		})
		if err != nil {
			return nil, err
		}
		return nil, ErrBadCredentials
	}
	u := cred.User
	require, err := s.store.RequireTOTP(ctx, u.OrganizationID)
	if err != nil {
		return nil, err
	}
	stage, lifetime := store.StageFull, SessionAbsolute
	switch {
	case u.TOTPEnabled:
		stage, lifetime = store.StageTOTP, SecondFactorTime
	case require:
		stage, lifetime = store.StageEnrol, SecondFactorTime
	}
	in := &SignIn{Stage: stage, User: u}
	err = s.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.ClearLoginFailures(store.ThrottleAccount, acct); err != nil {
			return err
		}
		if in.Token, err = tx.CreateSession(u.ID, stage, lifetime, ip, userAgent); err != nil {
			return err
		}
		if stage != store.StageFull {
			return nil
		}
		return s.signedIn(tx, u, ip, "password")
	})
	return in, err
}

func (s *Service) signedIn(tx *store.Tx, u *kyc.User, ip, how string) error {
	if err := tx.RecordLogin(u.ID); err != nil {
		return err
	}
	return Audit(tx, u.OrganizationID, "", UserActor(u), "console.login", "user", u.ID, how+" from "+ip)
}

// totpOpts are the usual authenticator-app settings: 6 digits, 30 s, SHA-1.
var totpOpts = totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// matchCode finds the time step (now, or one either side for clock skew)
// whose code is code, and reports it when it is newer than last (a code
// works once).
func matchCode(secret, code string, now time.Time, last int64) (int64, bool) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(code) != 6 {
		return 0, false
	}
	step := now.Unix() / 30
	for _, d := range []int64{0, -1, 1} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix((step+d)*30, 0), totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && step+d > last {
			return step + d, true
		}
	}
	return 0, false
}

// SecondFactor checks the code of a session at StageTOTP and, when right,
// replaces it with a full session (a new id: the session is rotated at
// sign-in). Wrong codes count as failed sign-ins of the account.
func (s *Service) SecondFactor(ctx context.Context, sess *store.Session, code, ip, userAgent string) (string, error) {
	if sess.Stage != store.StageTOTP {
		return "", kyc.Errorf(kyc.EForbidden, "This session is not waiting for a second factor.")
	}
	acct := accountSubject(sess.User.Email)
	if err := s.checkThrottle(ctx, store.ThrottleAccount, acct, AccountFailures); err != nil {
		return "", err
	}
	var token string
	var bad bool
	err := s.store.InTx(ctx, func(tx *store.Tx) error {
		secret, last, err := tx.FindTOTPSecret(sess.User.ID)
		if err != nil {
			return err
		}
		step, ok := matchCode(string(secret), code, tx.Now(), last)
		if secret == nil || !ok {
			bad = true
			if err := tx.RecordLoginFailure(store.ThrottleAccount, acct); err != nil {
				return err
			}
			return Audit(tx, sess.User.OrganizationID, "", UserActor(sess.User), "console.login_failed", "user", sess.User.ID, "wrong second-factor code from "+ip)
		}
		if err := tx.UseTOTPStep(sess.User.ID, step); err != nil {
			return err
		}
		if err := tx.ClearLoginFailures(store.ThrottleAccount, acct); err != nil {
			return err
		}
		if err := tx.DeleteSession(sess.IDHash); err != nil {
			return err
		}
		if token, err = tx.CreateSession(sess.User.ID, store.StageFull, SessionAbsolute, ip, userAgent); err != nil {
			return err
		}
		return s.signedIn(tx, sess.User, ip, "password and second factor")
	})
	if err == nil && bad {
		err = ErrBadCode
	}
	return token, err
}

// Enrolment is a second-factor secret being set up: what the account page
// shows before the user confirms it with a code.
type Enrolment struct {
	Secret string // base32, for typing into the app
	URL    string // otpauth:// URI
	QRCode string // data: URL of a PNG QR code of URL
}

// NewEnrolment makes a fresh secret for the user's authenticator app.
func (s *Service) NewEnrolment(u *kyc.User) (*Enrolment, error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: "kycd", AccountName: u.Email, Period: 30, Digits: otp.DigitsSix,
		Algorithm: otp.AlgorithmSHA1, SecretSize: 20})
	if err != nil {
		return nil, fmt.Errorf("generate totp secret: %w", err)
	}
	return enrolment(key)
}

// EnrolmentFor rebuilds the enrolment of a secret the form sent back (to
// show again after a wrong code).
func (s *Service) EnrolmentFor(u *kyc.User, secret string) (*Enrolment, error) {
	if !validSecret(secret) {
		return s.NewEnrolment(u)
	}
	k, err := totp.Generate(totp.GenerateOpts{Issuer: "kycd", AccountName: u.Email, Period: 30, Digits: otp.DigitsSix,
		Algorithm: otp.AlgorithmSHA1, Secret: mustDecodeSecret(secret)})
	if err != nil {
		return nil, fmt.Errorf("rebuild totp key: %w", err)
	}
	return enrolment(k)
}

func enrolment(key *otp.Key) (*Enrolment, error) {
	img, err := key.Image(200, 200)
	if err != nil {
		return nil, fmt.Errorf("totp qr code: %w", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode qr code: %w", err)
	}
	return &Enrolment{Secret: key.Secret(), URL: key.URL(), QRCode: "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())}, nil
}

// base32NoPad is how authenticator apps and otpauth URIs write secrets.
var base32NoPad = base32.StdEncoding.WithPadding(base32.NoPadding)

func validSecret(s string) bool {
	_, err := base32NoPad.DecodeString(s)
	return err == nil && len(s) >= 16 && len(s) <= 64
}

func mustDecodeSecret(s string) []byte {
	b, _ := base32NoPad.DecodeString(s)
	return b
}

// EnableTOTP turns on the second factor with secret once code proves the
// app has it. A session at StageEnrol becomes a full one (a new id); the
// returned token is then the new cookie value, else "".
func (s *Service) EnableTOTP(ctx context.Context, sess *store.Session, secret, code, ip, userAgent string) (string, error) {
	if !validSecret(secret) {
		return "", kyc.Invalid(kyc.FieldError{Field: "secret", Message: "is not a second-factor secret; start the set-up again"})
	}
	step, ok := matchCode(secret, code, s.now(), -1)
	if !ok {
		return "", ErrBadCode
	}
	var token string
	err := s.store.InTx(ctx, func(tx *store.Tx) (err error) {
		if err := tx.SetTOTPSecret(sess.User.ID, []byte(secret)); err != nil {
			return err
		}
		if err := tx.UseTOTPStep(sess.User.ID, step); err != nil {
			return err
		}
		if err := Audit(tx, sess.User.OrganizationID, "", UserActor(sess.User), "user.totp_enabled", "user", sess.User.ID, ""); err != nil {
			return err
		}
		// Other sessions signed in without the second factor end.
		if err := tx.DeleteUserSessions(sess.User.ID, sess.IDHash); err != nil {
			return err
		}
		if sess.Stage != store.StageEnrol {
			return nil
		}
		if err := tx.DeleteSession(sess.IDHash); err != nil {
			return err
		}
		if token, err = tx.CreateSession(sess.User.ID, store.StageFull, SessionAbsolute, ip, userAgent); err != nil {
			return err
		}
		return s.signedIn(tx, sess.User, ip, "password, second factor set up")
	})
	return token, err
}

// DisableTOTP turns the second factor off after a valid code, unless the
// organization requires one.
func (s *Service) DisableTOTP(ctx context.Context, sess *store.Session, code string) error {
	if sess.RequireTOTP {
		return kyc.Errorf(kyc.EUnprocessable, "Your organization requires a second factor; it cannot be turned off.")
	}
	var bad bool
	err := s.store.InTx(ctx, func(tx *store.Tx) error {
		secret, last, err := tx.FindTOTPSecret(sess.User.ID)
		if err != nil {
			return err
		}
		if _, ok := matchCode(string(secret), code, tx.Now(), last); secret == nil || !ok {
			bad = true
			return nil
		}
		if err := tx.SetTOTPSecret(sess.User.ID, nil); err != nil {
			return err
		}
		return Audit(tx, sess.User.OrganizationID, "", UserActor(sess.User), "user.totp_disabled", "user", sess.User.ID, "")
	})
	if err == nil && bad {
		err = ErrBadCode
	}
	return err
}

// ErrNoSession is the answer for a missing, unknown, idle or expired
// session, or one of a disabled user.
var ErrNoSession = &kyc.Error{Code: kyc.EForbidden, Reason: "no_session", Message: "Please sign in."}

// Session returns the live session a cookie names: one past its absolute
// end, idle for SessionIdle, or of a disabled user is ErrNoSession. Its
// activity is recorded (at most once a minute).
func (s *Service) Session(ctx context.Context, token string) (*store.Session, error) {
	if len(token) < 16 || len(token) > 128 {
		return nil, ErrNoSession
	}
	sess, err := s.store.FindSession(ctx, token)
	if kyc.ErrorCode(err) == kyc.ENotFound {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	now := s.now()
	if !now.Before(sess.ExpiresAt) || now.Sub(sess.LastSeenAt) >= SessionIdle {
		return nil, ErrNoSession
	}
	if now.Sub(sess.LastSeenAt) >= touchEvery {
		if err := s.store.InTx(ctx, func(tx *store.Tx) error { return tx.TouchSession(sess.IDHash) }); err != nil {
			return nil, err
		}
	}
	return sess, nil
}

// Logout ends a session.
func (s *Service) Logout(ctx context.Context, sess *store.Session) error {
	return s.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.DeleteSession(sess.IDHash); err != nil {
			return err
		}
		return Audit(tx, sess.User.OrganizationID, "", UserActor(sess.User), "console.logout", "user", sess.User.ID, "")
	})
}
