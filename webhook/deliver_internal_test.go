package webhook

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestAckTimeout: a receiver that does not answer within the timeout is a
// failed attempt (the real sender uses 10 s; this one 200 ms), and a
// redirect is not followed.
func TestAckTimeout(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer slow.Close()
	defer close(release)
	s := newSender(false, 200*time.Millisecond)
	start := time.Now()
	res := s.Post(t.Context(), false, slow.URL, http.Header{}, []byte(`{}`))
	if res.Err == nil || res.Status != 0 || !strings.Contains(res.Err.Error(), "Timeout") {
		t.Fatalf("slow receiver: %+v", res)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the timeout did not cut the attempt short: %s", took)
	}
	redirect := httptest.NewServer(http.RedirectHandler("http://127.0.0.1:1/elsewhere", http.StatusFound))
	defer redirect.Close()
	if res := s.Post(t.Context(), false, redirect.URL, http.Header{}, []byte(`{}`)); res.Status != 302 || res.Err == nil {
		t.Fatalf("redirect: %+v", res)
	}
	if AckTimeout != 10*time.Second {
		t.Errorf("AckTimeout = %s, spec §6.3 says 10 s", AckTimeout)
	}
}
