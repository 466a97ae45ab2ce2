package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"

	"kycd/internal/jsonkeys"
	"kycd/kyc"
	"kycd/store"
)

// idempotencyKey is the Idempotency-Key of the request being served, with
// the hash of what it asked for; commit saves the response under it.
type idempotencyKey struct {
	key  string
	hash []byte
}

func idempotencyFrom(ctx context.Context) *idempotencyKey {
	k, _ := ctx.Value(idempotencyCtxKey).(*idempotencyKey)
	return k
}

// inflightKeys are the idempotency keys whose first request is running in
// this process: a second request meanwhile gets 409 at once instead of
// waiting or running twice.
type inflightKeys struct {
	mu   sync.Mutex
	keys map[string]struct{}
}

func newInflightKeys() *inflightKeys { return &inflightKeys{keys: map[string]struct{}{}} }

func (f *inflightKeys) acquire(k string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, busy := f.keys[k]; busy {
		return false
	}
	f.keys[k] = struct{}{}
	return true
}

func (f *inflightKeys) release(k string) {
	f.mu.Lock()
	delete(f.keys, k)
	f.mu.Unlock()
}

// maxIdempotencyKeyLen bounds the header; UUIDs and ULIDs fit many times over.
const maxIdempotencyKeyLen = 255

// idempotent implements spec §7.3 for a POST route. A request with a key
// already answered (2xx, within 24 h) gets that answer again with
// Idempotent-Replayed: true; the same key with a different request is 422;
// a key whose first request is still running is 409. The response itself is
// saved by commit, in the transaction that creates the resource.
func (s *Server) idempotent(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			return next(w, r)
		}
		if len(key) > maxIdempotencyKeyLen || !printableASCII(key) {
			return kyc.Invalid(kyc.FieldError{Field: "Idempotency-Key", Message: "must be 1 to 255 printable ASCII characters"})
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		// Checked before any replay: the canonical form that matches a
		// stored request would otherwise hide a key given twice.
		if json.Valid(body) {
			if dups := jsonkeys.Duplicates(body); len(dups) > 0 {
				return kyc.Invalid(dups...)
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		apiKey := keyFrom(r.Context())
		ik := &idempotencyKey{key: key, hash: requestHash(r.Method, r.URL.Path, body)}
		// An answered key replays without taking the in-flight lock, so that
		// retries of a finished request never see 409.
		if replayed, err := s.replay(w, r, ik); replayed || err != nil {
			return err
		}
		scope := apiKey.OrganizationID + "\x00" + string(apiKey.Environment) + "\x00" + key
		if !s.inflight.acquire(scope) {
			return kyc.Errorf(kyc.EConflict, "A request with this Idempotency-Key is still being processed. Retry after it completes.")
		}
		defer s.inflight.release(scope)
		// Look again under the lock: the first request may have finished
		// between the look above and the lock.
		if replayed, err := s.replay(w, r, ik); replayed || err != nil {
			return err
		}
		return next(w, r.WithContext(context.WithValue(r.Context(), idempotencyCtxKey, ik)))
	}
}

// replay answers from the cache if the key has a stored response.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, ik *idempotencyKey) (bool, error) {
	apiKey := keyFrom(r.Context())
	cached, err := s.store.FindIdempotentResponse(r.Context(), apiKey.OrganizationID, apiKey.Environment, ik.key, s.now())
	if err != nil || cached == nil {
		return false, err
	}
	if !bytes.Equal(cached.RequestHash, ik.hash) {
		return false, &kyc.Error{Code: kyc.EUnprocessable,
			Message: "This Idempotency-Key was already used with a different request. Use a new key for a new request.",
			Details: []kyc.FieldError{{Field: "Idempotency-Key", Message: "was used with a different method, path or body"}}}
	}
	s.metrics.replays.Inc()
	w.Header().Set("Idempotent-Replayed", "true")
	writeRaw(w, cached.StatusCode, cached.Body)
	return true, nil
}

// requestHash identifies what a request asks for. A JSON body is hashed in
// canonical form (keys sorted, no spacing), so a client that re-serialises
// the same object is not refused.
func requestHash(method, path string, body []byte) []byte {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err == nil {
		if canon, err := json.Marshal(v); err == nil {
			body = canon
		}
	}
	h.Write(body)
	return h.Sum(nil)
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// commit runs fn in one write transaction and answers with status and fn's
// result. When the request carries an Idempotency-Key the response is saved
// in that same transaction: a created resource never lacks its cached
// response, and a cached response never lacks its resource.
func (s *Server) commit(w http.ResponseWriter, r *http.Request, status int, fn func(tx *store.Tx) (any, error)) error {
	ik := idempotencyFrom(r.Context())
	key := keyFrom(r.Context())
	var body []byte
	err := s.store.InTx(r.Context(), func(tx *store.Tx) error {
		v, err := fn(tx)
		if err != nil {
			return err
		}
		if body, err = marshal(v); err != nil {
			return err
		}
		if ik != nil && status >= 200 && status < 300 {
			return tx.SaveIdempotentResponse(key.OrganizationID, key.Environment, ik.key,
				&store.IdempotentResponse{RequestHash: ik.hash, StatusCode: status, Body: body})
		}
		return nil
	})
	if errors.Is(err, store.ErrIdempotencyRace) {
		// Another process answered this key first; our writes were rolled
		// back, so answer as it did.
		if replayed, rerr := s.replay(w, r, ik); replayed || rerr != nil {
			return rerr
		}
		return kyc.Errorf(kyc.EConflict, "A request with this Idempotency-Key is still being processed. Retry after it completes.")
	}
	if err != nil {
		return err
	}
	writeRaw(w, status, body)
	return nil
}
