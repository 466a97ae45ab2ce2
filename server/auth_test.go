package server_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

func TestAuthentication(t *testing.T) {
	e := newAPIEnv(t)
	valid := e.A.SandboxKey
	id, secret, _ := strings.Cut(strings.TrimPrefix(valid, "svc_test_"), ".")
	otherSecret := strings.Repeat("A", len(secret))
	for _, tt := range []struct {
		name, header   string
		status         int
		code, reason   string
		withoutHeaders bool
	}{
		{"no header", "", 401, "MISSING_API_KEY", "missing_api_key", true},
		{"blank header", "   ", 401, "MISSING_API_KEY", "missing_api_key", true},
		{"basic scheme", "Basic " + valid, 401, "INVALID_API_KEY", "invalid_api_key", true},
		{"malformed", "Bearer svc_test_nope", 401, "INVALID_API_KEY", "invalid_api_key", true},
		{"no secret", "Bearer svc_test_" + id, 401, "INVALID_API_KEY", "invalid_api_key", true},
		{"unknown id", "Bearer svc_test_01JCXW6Y0Q4H3T2V5N7M8K9P0R." + secret, 401, "INVALID_API_KEY", "invalid_api_key", true},
		{"wrong secret", "Bearer svc_test_" + id + "." + otherSecret, 401, "INVALID_API_KEY", "invalid_api_key", true},
		{"sandbox id under live prefix", "Bearer svc_live_" + id + "." + secret, 401, "INVALID_API_KEY", "invalid_api_key", true},
		{"valid, lower-case scheme", "bearer " + valid, 200, "", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call("GET", "/v1/applicants", "", "", "Authorization", tt.header)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if tt.code == "" {
				return
			}
			errObj := r.json(t)["error"].(map[string]any)
			if errObj["code"] != tt.code || errObj["reason"] != tt.reason || errObj["type"] != "authentication" {
				t.Errorf("error = %v, want code %s reason %s", errObj, tt.code, tt.reason)
			}
			if strings.Contains(string(r.body), secret) {
				t.Errorf("the secret is echoed in the error")
			}
		})
	}
}

// TestRevocationIsImmediate revokes a key through a second handle on the
// database file, as the CLI does, while the server runs.
func TestRevocationIsImmediate(t *testing.T) {
	e := newAPIEnv(t)
	if r := e.call("GET", "/v1/applicants", e.A.SandboxKey, ""); r.status != 200 {
		t.Fatalf("before: %d", r.status)
	}
	cli, err := store.Open(t.Context(), storetest.Reopen(e.store), store.Options{CheckpointEvery: -1, MasterKey: storetest.MasterKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.InTx(t.Context(), func(tx *store.Tx) error { _, err := tx.RevokeAPIKey(e.A.SandboxID); return err }); err != nil {
		t.Fatal(err)
	}
	cli.Close()
	r := e.call("GET", "/v1/applicants", e.A.SandboxKey, "")
	if r.status != 401 || r.errCode(t) != "INVALID_API_KEY" || r.json(t)["error"].(map[string]any)["reason"] != "revoked_api_key" {
		t.Fatalf("after revoke: %d %s", r.status, r.body)
	}
	// The organization's other key still works.
	if r := e.call("GET", "/v1/applicants", e.A.LiveKey, ""); r.status != 200 {
		t.Errorf("other key: %d", r.status)
	}
}

func TestRateLimit(t *testing.T) {
	e := newAPIEnv(t)
	var sandbox, starter, unlimited string
	zero := 0
	err := e.store.InTx(t.Context(), func(tx *store.Tx) (err error) {
		if _, sandbox, err = tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: e.A.ID, Environment: kyc.Sandbox}); err != nil {
			return err
		}
		if _, starter, err = tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: e.A.ID, Environment: kyc.Live, Tier: kyc.TierStarter}); err != nil {
			return err
		}
		_, unlimited, err = tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: e.A.ID, Environment: kyc.Live, RPMOverride: &zero})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		key   string
		limit int
	}{{"sandbox", sandbox, 60}, {"live starter", starter, 300}} {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.limit {
				r := e.call("GET", "/v1/applicants", tt.key, "")
				if r.status != 200 {
					t.Fatalf("request %d: %d %s", i+1, r.status, r.body)
				}
				if got := r.header.Get("RateLimit-Limit"); got != strconv.Itoa(tt.limit) {
					t.Fatalf("RateLimit-Limit %s, want %d", got, tt.limit)
				}
				if got := r.header.Get("RateLimit-Remaining"); got != strconv.Itoa(tt.limit-i-1) {
					t.Fatalf("request %d: RateLimit-Remaining %s, want %d", i+1, got, tt.limit-i-1)
				}
			}
			// Over the limit: 429, and Retry-After says when the oldest
			// request of the window leaves it.
			r := e.call("GET", "/v1/applicants", tt.key, "")
			if r.status != http.StatusTooManyRequests || r.errCode(t) != "RATE_LIMITED" || r.json(t)["error"].(map[string]any)["reason"] != "rate_limited" {
				t.Fatalf("over the limit: %d %s", r.status, r.body)
			}
			if got := r.header.Get("Retry-After"); got != "60" {
				t.Errorf("Retry-After %q, want 60", got)
			}
			if r.header.Get("RateLimit-Remaining") != "0" || r.header.Get("RateLimit-Reset") != "60" {
				t.Errorf("RateLimit-Remaining %s, Reset %s", r.header.Get("RateLimit-Remaining"), r.header.Get("RateLimit-Reset"))
			}
			e.clock.Advance(59 * time.Second)
			if r := e.call("GET", "/v1/applicants", tt.key, ""); r.status != 429 || r.header.Get("Retry-After") != "1" {
				t.Errorf("after 59 s: %d, Retry-After %s", r.status, r.header.Get("Retry-After"))
			}
			// Refused requests cost nothing: a minute after the burst the
			// whole allowance is back.
			e.clock.Advance(time.Second)
			if r := e.call("GET", "/v1/applicants", tt.key, ""); r.status != 200 || r.header.Get("RateLimit-Remaining") != strconv.Itoa(tt.limit-1) {
				t.Errorf("after a minute: %d, remaining %s", r.status, r.header.Get("RateLimit-Remaining"))
			}
			e.clock.Advance(time.Hour)
		})
	}
	// No 60-second window ever admits more than the limit: a client sending
	// two requests a second for three minutes gets one a second through.
	t.Run("sliding window", func(t *testing.T) {
		var accepted []time.Time
		for range 360 {
			if r := e.call("GET", "/v1/applicants?size=1", sandbox, ""); r.status == 200 {
				accepted = append(accepted, e.clock.Now())
			}
			e.clock.Advance(500 * time.Millisecond)
		}
		for i := range accepted {
			n := 0
			for _, at := range accepted[i:] {
				if at.Sub(accepted[i]) < time.Minute {
					n++
				}
			}
			if n > 60 {
				t.Fatalf("%d requests admitted in the minute from %s", n, accepted[i])
			}
		}
		if len(accepted) < 175 || len(accepted) > 181 {
			t.Errorf("%d of 360 admitted over 3 minutes, want about 180", len(accepted))
		}
		e.clock.Advance(time.Hour)
	})
	t.Run("POST counts too and is not executed", func(t *testing.T) {
		e.clock.Advance(time.Hour)
		for range 60 {
			e.call("GET", "/v1/applicants", sandbox, "")
		}
		if r := e.call("POST", "/v1/applicants", sandbox, `{"firstName":"A","lastName":"B"}`); r.status != 429 {
			t.Fatalf("POST over the limit: %d", r.status)
		}
		e.clock.Advance(time.Hour)
		if r := e.call("GET", "/v1/applicants", sandbox, ""); r.json(t)["pagination"].(map[string]any)["totalItems"] != float64(0) {
			t.Errorf("a refused POST created something: %s", r.body)
		}
	})
	t.Run("unlimited override", func(t *testing.T) {
		for range 1100 {
			if r := e.call("GET", "/v1/applicants?size=1", unlimited, ""); r.status != 200 || r.header.Get("RateLimit-Limit") != "" {
				t.Fatalf("unlimited key: %d limit %q", r.status, r.header.Get("RateLimit-Limit"))
			}
		}
	})
}

func TestRequestID(t *testing.T) {
	e := newAPIEnv(t)
	if r := e.call("GET", "/v1/applicants", e.A.SandboxKey, "", "X-Request-Id", "trace-123.abc"); r.header.Get("X-Request-Id") != "trace-123.abc" {
		t.Errorf("client id not echoed: %q", r.header.Get("X-Request-Id"))
	}
	r := e.call("GET", "/v1/applicants", e.A.SandboxKey, "", "X-Request-Id", "bad id\twith spaces")
	if got := r.header.Get("X-Request-Id"); !strings.HasPrefix(got, "req_") {
		t.Errorf("unsafe client id accepted: %q", got)
	}
	a := e.call("GET", "/nowhere", "", "").header.Get("X-Request-Id")
	b := e.call("GET", "/nowhere", "", "").header.Get("X-Request-Id")
	if a == b || !strings.HasPrefix(a, "req_") {
		t.Errorf("generated ids %q and %q", a, b)
	}
}
