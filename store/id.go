package store

import (
	"crypto/rand"
	"encoding/base32"
	"math/big"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"kycd/kyc"
)

// ids hands out strictly increasing ULIDs from crypto/rand (ulid.Make uses
// a non-cryptographic source, and ids must not be predictable). Lists are
// ordered by id, so the order must be creation order: the timestamp never
// goes back, even if the wall clock does, and ids within one millisecond
// increase by the monotonic entropy.
type ids struct {
	mu      sync.Mutex
	lastMs  uint64
	entropy *ulid.MonotonicEntropy
}

var idSource = &ids{entropy: ulid.Monotonic(rand.Reader, 0)}

// NewULID returns a new canonical (upper-case) ULID for time t, greater
// than every ULID it returned before.
func NewULID(t time.Time) string {
	idSource.mu.Lock()
	defer idSource.mu.Unlock()
	ms := max(ulid.Timestamp(t), idSource.lastMs)
	idSource.lastMs = ms
	return ulid.MustNew(ms, idSource.entropy).String()
}

// NewRandomULID returns a ULID with fresh random bits, for ids that need no
// order (request ids); it leaves NewULID's sequence alone.
func NewRandomULID(t time.Time) string {
	return ulid.MustNew(ulid.Timestamp(t), rand.Reader).String()
}

// crockford is Crockford's base32 alphabet in lower case: no i, l, o, u, so
// a public id read aloud or retyped is hard to get wrong.
var crockford = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// NewPublicID returns prefix + 12 random Crockford base32 characters
// (60 bits), e.g. app_7k3m9qz2xw4d.
func NewPublicID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return prefix + crockford.EncodeToString(b[:])[:kyc.PublicCodeLen]
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewSecret returns n random base62 characters (5.95 bits each), drawn
// without modulo bias.
func NewSecret(n int) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(base62)))
	for i := range b {
		v, _ := rand.Int(rand.Reader, max) // never fails with crypto/rand
		b[i] = base62[v.Int64()]
	}
	return string(b)
}
