package server

import "testing"

// TestLogPathHidesPortalTokens: the link token is the applicant's
// credential and must not reach the access log.
func TestLogPathHidesPortalTokens(t *testing.T) {
	for in, want := range map[string]string{
		"/portal/AbCdEf0123456789AbCdEf0123456789":          "/portal/{token}",
		"/portal/AbCdEf0123456789AbCdEf0123456789/captures": "/portal/{token}/captures",
		"/portal/assets/abc123/portal.css":                  "/portal/assets/abc123/portal.css",
		"/v1/kyc-requests":                                  "/v1/kyc-requests",
	} {
		if got := logPath(in); got != want {
			t.Errorf("logPath(%q) = %q, want %q", in, got, want)
		}
	}
}
