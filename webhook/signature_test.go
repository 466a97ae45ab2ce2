package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

const secret = "whsec_3q2+7w==example-secret-of-32-bytes"

// TestSignByteForByte recomputes the signature independently of Sign.
func TestSignByteForByte(t *testing.T) {
	body := []byte(`{"eventId":"kev_01JCXW6Y0Q4H3T2V5N7M8K9P0R","eventType":"svc.kyc.request.created"}`)
	at := time.Unix(1767323045, 0)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%d.%s", at.Unix(), body)
	want := "v1,t=1767323045,sig=" + hex.EncodeToString(mac.Sum(nil))
	if got := Sign(secret, at, body); got != want {
		t.Fatalf("Sign = %s\nwant   %s", got, want)
	}
	if err := Verify(secret, want, body, at); err != nil {
		t.Fatalf("Verify of a good signature: %v", err)
	}
}

func TestVerify(t *testing.T) {
	body := []byte(`{"a":1}`)
	now := time.Unix(1767323045, 0)
	good := Sign(secret, now, body)
	sig := good[strings.Index(good, "sig=")+4:]
	for _, tt := range []struct {
		name   string
		header string
		body   []byte
		now    time.Time
		secret string
		want   error
	}{
		{"good", good, body, now, secret, nil},
		{"299 s late", good, body, now.Add(299 * time.Second), secret, nil},
		{"300 s late", good, body, now.Add(300 * time.Second), secret, nil},
		{"301 s late", good, body, now.Add(301 * time.Second), secret, ErrTimestampTooOld},
		{"300 s early", good, body, now.Add(-300 * time.Second), secret, nil},
		{"301 s early", good, body, now.Add(-301 * time.Second), secret, ErrTimestampInFuture},
		{"other body", good, []byte(`{"a":2}`), now, secret, ErrSignatureMismatch},
		{"body re-serialised", good, []byte(`{"a": 1}`), now, secret, ErrSignatureMismatch},
		{"other secret", good, body, now, "whsec_other", ErrSignatureMismatch},
		{"secret without prefix", good, body, now, strings.TrimPrefix(secret, "whsec_"), ErrSignatureMismatch},
		{"v2", strings.Replace(good, "v1", "v2", 1), body, now, secret, ErrUnsupportedVersion},
		{"no version", good[3:], body, now, secret, ErrMalformedHeader},
		{"empty", "", body, now, secret, ErrNoSignature},
		{"no sig", "v1,t=1767323045", body, now, secret, ErrMalformedHeader},
		{"no t", "v1,sig=" + sig, body, now, secret, ErrMalformedHeader},
		{"two t", "v1,t=1,t=1767323045,sig=" + sig, body, now, secret, ErrMalformedHeader},
		{"upper-case hex", "v1,t=1767323045,sig=" + strings.ToUpper(sig), body, now, secret, ErrMalformedHeader},
		{"short sig", "v1,t=1767323045,sig=" + sig[:62], body, now, secret, ErrMalformedHeader},
		{"t not a number", "v1,t=soon,sig=" + sig, body, now, secret, ErrMalformedHeader},
		{"unknown part ignored", good + ",x=1", body, now, secret, nil},
		{"spaces around parts", strings.ReplaceAll(good, ",", ", "), body, now, secret, nil},
		{"rotation: old and new", SignAll([]string{"whsec_old", secret}, now, body), body, now, secret, nil},
		{"rotation: neither", SignAll([]string{"whsec_a", "whsec_b"}, now, body), body, now, secret, ErrSignatureMismatch},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(tt.secret, tt.header, tt.body, tt.now)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

// FuzzParseHeader: no input panics; whatever parses re-verifies as the
// parser says, and a header made by Sign always parses.
func FuzzParseHeader(f *testing.F) {
	f.Add("v1,t=1767323045,sig=" + strings.Repeat("ab", 32))
	f.Add("v1,t=,sig=")
	f.Add("v2,t=1")
	f.Add(",,,=,")
	f.Fuzz(func(t *testing.T, h string) {
		s, err := ParseHeader(h)
		if err == nil {
			if s.Version != Version || len(s.Signatures) == 0 || s.Timestamp < 0 {
				t.Fatalf("ParseHeader(%q) = %+v without error", h, s)
			}
			for _, sig := range s.Signatures {
				if len(sig) != sha256.Size {
					t.Fatalf("signature of %d bytes", len(sig))
				}
			}
		}
		_ = Verify(secret, h, []byte(h), time.Unix(1767323045, 0))
	})
}
