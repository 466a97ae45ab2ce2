package console_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"testing"

	"kycd/internal/clientip"
	"kycd/server"
)

// TestSignInLimitIgnoresSpoofedForwardedFor is the attack of issue 23
// item 8: a client that reaches kycd directly rotates the last
// X-Forwarded-For entry on each failed sign-in, so that each attempt seems
// to come from a new address and the per-address limit (30 in 15 minutes)
// never trips. With proxies named by --trusted-proxies, the header of a
// peer that is not one of them is ignored: the 31st attempt is refused.
func TestSignInLimitIgnoresSpoofedForwardedFor(t *testing.T) {
	attempts := func(trusted []netip.Prefix) int {
		t.Helper()
		e := newEnv(t, func(e *env, o *server.Options) { o.TrustedProxies = trusted })
		b := e.browser()
		var last int
		for i := range 31 {
			last = b.do("POST", "/console/login", url.Values{"email": {fmt.Sprintf("nobody%d@acme.example", i)}, "password": {"wrong password 123"}},
				"X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i+1)).status
		}
		return last
	}
	// The test's client connects from 127.0.0.1: not a trusted proxy
	// here, so it is a client reaching kycd directly.
	if got := attempts([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}); got != http.StatusTooManyRequests {
		t.Errorf("attempt 31 from a direct client with a new X-Forwarded-For: %d, want 429", got)
	}
	// Here it is the trusted proxy (what --trust-proxy now means): the
	// addresses it vouches for are 31 clients, none over the limit.
	if got := attempts(clientip.Loopback); got != http.StatusUnauthorized {
		t.Errorf("attempt 31 of 31 clients behind a trusted proxy: %d, want 401", got)
	}
}
