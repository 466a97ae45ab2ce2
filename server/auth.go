package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"kycd/kyc"
)

type keyCtx struct{}

// keyFrom returns the authenticated key of the request; only routes
// registered with handle have one.
func keyFrom(ctx context.Context) *kyc.APIKey {
	k, _ := ctx.Value(keyCtx{}).(*kyc.APIKey)
	return k
}

func authError(code, reason, msg string) error {
	return &kyc.Error{Code: code, Reason: reason, Message: msg}
}

// authenticate checks the bearer key on every request against the database
// (no cache), so that a key revoked by the CLI fails on its very next use.
func (s *Server) authenticate(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		h := r.Header.Get("Authorization")
		if strings.TrimSpace(h) == "" {
			return authError(kyc.EMissingAPIKey, kyc.ReasonMissingAPIKey, "No API key given. Send it as Authorization: Bearer <API_KEY>.")
		}
		scheme, token, _ := strings.Cut(strings.TrimSpace(h), " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return authError(kyc.EInvalidAPIKey, kyc.ReasonInvalidAPIKey, "The Authorization header must use the Bearer scheme: Authorization: Bearer <API_KEY>.")
		}
		parsed, ok := kyc.ParseAPIKey(strings.TrimSpace(token))
		if !ok {
			return authError(kyc.EInvalidAPIKey, kyc.ReasonInvalidAPIKey, "The API key is malformed. Keys look like svc_test_<id>.<secret> or svc_live_<id>.<secret>.")
		}
		key, err := s.store.FindAPIKey(r.Context(), parsed.ID)
		if kyc.ErrorCode(err) == kyc.ENotFound {
			return authError(kyc.EInvalidAPIKey, kyc.ReasonInvalidAPIKey, "The API key is not valid.")
		}
		if err != nil {
			return err
		}
		sum := sha256.Sum256([]byte(parsed.Secret))
		if subtle.ConstantTimeCompare(sum[:], key.SecretHash) != 1 || key.Environment != parsed.Environment {
			return authError(kyc.EInvalidAPIKey, kyc.ReasonInvalidAPIKey, "The API key is not valid.")
		}
		if key.RevokedAt != nil {
			return authError(kyc.EInvalidAPIKey, kyc.ReasonRevokedAPIKey, "The API key was revoked. Create a new key.")
		}
		requestInfoFrom(r.Context()).key = key
		return next(w, r.WithContext(context.WithValue(r.Context(), keyCtx{}, key)))
	}
}

// rateLimiter keeps one token bucket per key: the bucket holds a minute's
// allowance and refills continuously, so a client may burst up to its limit
// and then goes on at limit/60 requests a second.
type rateLimiter struct {
	now     func() time.Time
	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	rpm int
	lim *rate.Limiter
}

func newRateLimiter(now func() time.Time) *rateLimiter {
	return &rateLimiter{now: now, buckets: map[string]*bucket{}}
}

func (l *rateLimiter) bucketFor(key *kyc.APIKey) *bucket {
	rpm := key.RequestsPerMinute()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key.ID]
	if b == nil || b.rpm != rpm {
		b = &bucket{rpm: rpm, lim: rate.NewLimiter(rate.Limit(float64(rpm)/60), rpm)}
		l.buckets[key.ID] = b
	}
	return b
}

// rateLimit enforces the key's per-minute limit (spec §8) and sets the
// RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers (seconds
// until the bucket is full again) on every response of a limited key.
func (s *Server) rateLimit(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		key := keyFrom(r.Context())
		b := s.limits.bucketFor(key)
		if b.rpm == 0 {
			return next(w, r) // unlimited (operator override)
		}
		now := s.limits.now()
		perToken := time.Minute / time.Duration(b.rpm)
		h := w.Header()
		h.Set("RateLimit-Limit", strconv.Itoa(b.rpm))
		if !b.lim.AllowN(now, 1) {
			delay := time.Duration((1 - b.lim.TokensAt(now)) * float64(perToken))
			h.Set("RateLimit-Remaining", "0")
			h.Set("RateLimit-Reset", strconv.Itoa(ceilSeconds(fullIn(b, now, perToken))))
			retry := ceilSeconds(delay)
			h.Set("Retry-After", strconv.Itoa(retry))
			return authError(kyc.ERateLimited, kyc.ReasonRateLimited,
				"Rate limit of "+strconv.Itoa(b.rpm)+" requests per minute exceeded. Retry after "+strconv.Itoa(retry)+" s.")
		}
		h.Set("RateLimit-Remaining", strconv.Itoa(max(0, int(math.Floor(b.lim.TokensAt(now))))))
		h.Set("RateLimit-Reset", strconv.Itoa(ceilSeconds(fullIn(b, now, perToken))))
		return next(w, r)
	}
}

// fullIn is the time until the bucket is full again.
func fullIn(b *bucket, now time.Time, perToken time.Duration) time.Duration {
	missing := float64(b.rpm) - b.lim.TokensAt(now)
	return time.Duration(missing * float64(perToken))
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(d.Seconds()))
}

// checkEnvironment reads the optional body field "environment": it must be
// sandbox or live (else a validation detail) and the key's own environment
// (else 403 wrong_environment, as spec §5.3 says for a mismatch).
func checkEnvironment(o *object, key *kyc.APIKey) error {
	v := o.str("environment")
	if v == nil {
		return nil
	}
	env := kyc.Environment(*v)
	if !env.Valid() {
		o.fail("environment", "must be sandbox or live")
		return nil
	}
	if env != key.Environment {
		return &kyc.Error{Code: kyc.EWrongEnvironment, Reason: kyc.ReasonWrongEnvironment,
			Message: fmt.Sprintf("The body says environment %s but this API key is for %s.", env, key.Environment),
			Details: []kyc.FieldError{{Field: "environment", Message: "must be the API key's environment, " + string(key.Environment)}}}
	}
	return nil
}
