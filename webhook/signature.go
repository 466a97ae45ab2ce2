// Package webhook signs and verifies kycd's webhook deliveries (spec §6.4)
// and sends them. Integrators can use Verify as it is.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Version is the only signature scheme: the header starts with it.
const Version = "v1"

// Tolerance is how far a signature's timestamp may be from the verifier's
// clock, in either direction (spec §6.4.4, §8).
const Tolerance = 300 * time.Second

// Errors of Verify; test with errors.Is.
var (
	ErrNoSignature        = errors.New("webhook: no X-Svc-Signature header")
	ErrMalformedHeader    = errors.New("webhook: malformed X-Svc-Signature header")
	ErrUnsupportedVersion = errors.New("webhook: unsupported signature version (only v1 is accepted)")
	ErrTimestampTooOld    = errors.New("webhook: signature timestamp is more than 300 s in the past")
	ErrTimestampInFuture  = errors.New("webhook: signature timestamp is more than 300 s in the future")
	ErrSignatureMismatch  = errors.New("webhook: signature does not match the body and secret")
)

// Sign returns the X-Svc-Signature value for body sent at t:
// v1,t=<unix seconds>,sig=<lower-case hex HMAC-SHA256 of "<t>.<body>">,
// keyed with the endpoint secret exactly as shown to the user (its UTF-8
// bytes, whsec_ prefix included).
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return Version + ",t=" + ts + ",sig=" + signature(secret, ts, body)
}

// SignAll signs body with each secret in one header (v1,t=…,sig=…,sig=…),
// for a secret rotation during which receivers may hold either secret.
func SignAll(secrets []string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString(Version + ",t=" + ts)
	for _, s := range secrets {
		b.WriteString(",sig=" + signature(s, ts, body))
	}
	return b.String()
}

func signature(secret, ts string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// Signature is a parsed X-Svc-Signature header.
type Signature struct {
	Version    string
	Timestamp  int64
	Signatures [][]byte // one or more (during a secret rotation)
}

// ParseHeader parses an X-Svc-Signature value. It checks the shape only:
// the version, one t= of decimal seconds, one or more sig= of 64 lower-case
// hex characters. Unknown key=value parts are ignored, so the format can
// grow.
func ParseHeader(h string) (Signature, error) {
	var s Signature
	if strings.TrimSpace(h) == "" {
		return s, ErrNoSignature
	}
	parts := strings.Split(h, ",")
	s.Version = strings.TrimSpace(parts[0])
	if s.Version != Version {
		if strings.Contains(s.Version, "=") || s.Version == "" {
			return s, fmt.Errorf("%w: it must start with the version, e.g. v1,t=…", ErrMalformedHeader)
		}
		return s, ErrUnsupportedVersion
	}
	seenT := false
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return s, fmt.Errorf("%w: %q is not key=value", ErrMalformedHeader, p)
		}
		switch k {
		case "t":
			if seenT {
				return s, fmt.Errorf("%w: more than one t=", ErrMalformedHeader)
			}
			seenT = true
			ts, err := strconv.ParseInt(v, 10, 64)
			if err != nil || ts < 0 || v[0] == '+' {
				return s, fmt.Errorf("%w: t= must be Unix seconds", ErrMalformedHeader)
			}
			s.Timestamp = ts
		case "sig":
			if len(v) != 2*sha256.Size || strings.ToLower(v) != v {
				return s, fmt.Errorf("%w: sig= must be 64 lower-case hex characters", ErrMalformedHeader)
			}
			b, err := hex.DecodeString(v)
			if err != nil {
				return s, fmt.Errorf("%w: sig= must be 64 lower-case hex characters", ErrMalformedHeader)
			}
			s.Signatures = append(s.Signatures, b)
		}
	}
	if !seenT || len(s.Signatures) == 0 {
		return s, fmt.Errorf("%w: it needs t= and sig=", ErrMalformedHeader)
	}
	return s, nil
}

// Verify checks a delivery exactly as spec §6.4 says: only v1, a timestamp
// within 300 s of now in either direction, and an HMAC-SHA256 of
// "<t>.<raw body>" under secret that equals one of the header's signatures,
// compared in constant time. body must be the raw bytes received, before
// any JSON parsing.
func Verify(secret, header string, body []byte, now time.Time) error {
	s, err := ParseHeader(header)
	if err != nil {
		return err
	}
	skew := now.Unix() - s.Timestamp
	switch {
	case skew > int64(Tolerance/time.Second):
		return ErrTimestampTooOld
	case skew < -int64(Tolerance/time.Second):
		return ErrTimestampInFuture
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(s.Timestamp, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	want := mac.Sum(nil)
	ok := 0
	for _, got := range s.Signatures {
		// Check every signature, not stopping at a match, so the time
		// taken does not tell which one matched.
		if hmac.Equal(want, got) {
			ok = 1
		}
	}
	if ok == 0 {
		return ErrSignatureMismatch
	}
	return nil
}
