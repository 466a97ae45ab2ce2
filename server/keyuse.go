package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"kycd/store"
)

// keyUseFlushEvery is how often counted key use is written: the console's
// "last used" and 24 h counts lag by at most this, and an API request
// costs no write of its own.
const keyUseFlushEvery = 5 * time.Second

// keyUse counts authenticated requests per key and hour in memory.
type keyUse struct {
	mu       sync.Mutex
	pending  map[string]*store.KeyUse
	lastSave time.Time
	saving   bool
}

// note counts one request of key from ip at now, and starts a write when
// the last one is old enough.
func (s *Server) noteKeyUse(keyID, ip string, now time.Time) {
	k := &s.keyUse
	k.mu.Lock()
	if k.pending == nil {
		k.pending = map[string]*store.KeyUse{}
	}
	u := k.pending[keyID]
	if u == nil {
		u = &store.KeyUse{KeyID: keyID, Requests: map[time.Time]int{}}
		k.pending[keyID] = u
	}
	u.Requests[now.UTC().Truncate(time.Hour)]++
	if !now.Before(u.LastAt) {
		u.LastAt, u.LastIP = now, ip
	}
	due := !k.saving && now.Sub(k.lastSave) >= keyUseFlushEvery
	if due {
		k.saving, k.lastSave = true, now
	}
	k.mu.Unlock()
	if due {
		go func() {
			if err := s.FlushKeyUse(context.Background()); err != nil {
				s.log.Warn("record API key use", "err", err)
			}
			k.mu.Lock()
			k.saving = false
			k.mu.Unlock()
		}()
	}
}

// FlushKeyUse writes the key use counted so far (serve calls it at
// shutdown; tests call it to read the counts at once). On failure the
// counts are put back for the next write.
func (s *Server) FlushKeyUse(ctx context.Context) error {
	k := &s.keyUse
	k.mu.Lock()
	batch := make([]store.KeyUse, 0, len(k.pending))
	for _, u := range k.pending {
		batch = append(batch, *u)
	}
	k.pending = nil
	k.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := s.store.InTx(ctx, func(tx *store.Tx) error { return tx.RecordKeyUse(batch) })
	if err != nil {
		k.mu.Lock()
		if k.pending == nil {
			k.pending = map[string]*store.KeyUse{}
		}
		for i := range batch {
			u := &batch[i]
			if cur := k.pending[u.KeyID]; cur != nil {
				for h, n := range cur.Requests {
					u.Requests[h] += n
				}
				if cur.LastAt.After(u.LastAt) {
					u.LastAt, u.LastIP = cur.LastAt, cur.LastIP
				}
			}
			k.pending[u.KeyID] = u
		}
		k.mu.Unlock()
	}
	return err
}

// clientIP is the request's client address (behind a trusted proxy, the
// one it vouches for: see Options.TrustedProxies).
func (s *Server) clientIP(r *http.Request) string { return s.clientIPs.ClientIP(r) }
