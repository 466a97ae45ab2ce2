package kyc

import (
	"strings"
	"time"
)

// Tier is the commercial tier of a live key; it sets the per-minute limit.
type Tier string

// The tiers of spec §8.
const (
	TierFree    Tier = "free"
	TierStarter Tier = "starter"
	TierPro     Tier = "pro"
)

// Valid reports whether t is a known tier.
func (t Tier) Valid() bool { return t == TierFree || t == TierStarter || t == TierPro }

// Key prefixes of spec §5.2. The prefix carries the environment so that a
// key pasted in the wrong place is recognisable on sight.
const (
	SandboxKeyPrefix = "svc_test_"
	LiveKeyPrefix    = "svc_live_"
)

// SecretLen is the length of the base62 secret part of a key: 43 characters
// carry 256 bits, well above the 128 the design requires.
const SecretLen = 43

// MaxRPM is the highest per-minute limit a key may be given (--rpm):
// about 16,700 requests a second, more than one kycd serves. Above it,
// use 0 (unlimited).
const MaxRPM = 1_000_000

// APIKey is a stored API key. The secret itself is never stored, only its
// SHA-256, which is enough for a high-entropy random secret.
type APIKey struct {
	ID             string // the ULID part of the key
	OrganizationID string
	Environment    Environment
	Tier           Tier
	RPMOverride    *int // nil: the tier's limit; 0: unlimited
	Name           string
	SecretHash     []byte
	CreatedAt      time.Time
	RevokedAt      *time.Time
}

// RequestsPerMinute returns the key's per-minute limit; 0 means unlimited.
// Sandbox keys get the sandbox limit whatever their tier (spec §8).
func (k *APIKey) RequestsPerMinute() int {
	if k.RPMOverride != nil {
		return *k.RPMOverride
	}
	if k.Environment == Sandbox {
		return 60
	}
	switch k.Tier {
	case TierStarter:
		return 300
	case TierPro:
		return 1000
	default:
		return 60
	}
}

// Prefix returns the public part of the key: svc_test_<ulid> or svc_live_<ulid>.
func (k *APIKey) Prefix() string { return KeyPrefix(k.Environment) + k.ID }

// KeyPrefix returns the key prefix for env.
func KeyPrefix(env Environment) string {
	if env == Live {
		return LiveKeyPrefix
	}
	return SandboxKeyPrefix
}

// ParsedKey is a bearer token split into its parts.
type ParsedKey struct {
	Environment Environment
	ID          string
	Secret      string
}

// ParseAPIKey splits a bearer token of the form svc_test_<ulid>.<secret>. It
// checks only the shape; ok is false for anything malformed.
func ParseAPIKey(token string) (k ParsedKey, ok bool) {
	switch {
	case strings.HasPrefix(token, SandboxKeyPrefix):
		k.Environment, token = Sandbox, token[len(SandboxKeyPrefix):]
	case strings.HasPrefix(token, LiveKeyPrefix):
		k.Environment, token = Live, token[len(LiveKeyPrefix):]
	default:
		return k, false
	}
	id, secret, found := strings.Cut(token, ".")
	if !found || !ValidULID(id) || len(secret) != SecretLen || !isBase62(secret) {
		return k, false
	}
	k.ID, k.Secret = id, secret
	return k, true
}

func isBase62(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// CheckContactEmail checks an organization's contact address: empty (none)
// or a bare e-mail address ("ops@example.com", not "Ops <ops@…>"). A
// VALIDATION_ERROR on the field contactEmail otherwise.
func CheckContactEmail(s string) error {
	if s == "" || ValidEmail(s) {
		return nil
	}
	return Invalid(FieldError{Field: "contactEmail", Message: "must be a bare e-mail address such as compliance@example.com"})
}

// Organization is a customer of the service; every resource belongs to one.
type Organization struct {
	ID           string
	Name         string
	ContactEmail string // where operational notices go; "" for none (CheckContactEmail)
	// AMLThreshold is the organization's match threshold; nil means
	// screening.DefaultThreshold.
	AMLThreshold *float64
	// AMLKinds are the list kinds the organization screens (always with
	// sanctions); nil means the default: sanctions plus every kind the
	// installation has a list of.
	AMLKinds  []string
	CreatedAt time.Time
}
