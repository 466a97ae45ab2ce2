package webhook

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
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
	s := newSender(true, 200*time.Millisecond)
	start := time.Now()
	res := s.Post(t.Context(), slow.URL, http.Header{}, []byte(`{}`))
	if res.Err == nil || res.Status != 0 || !strings.Contains(res.Err.Error(), "Timeout") {
		t.Fatalf("slow receiver: %+v", res)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the timeout did not cut the attempt short: %s", took)
	}
	redirect := httptest.NewServer(http.RedirectHandler("http://127.0.0.1:1/elsewhere", http.StatusFound))
	defer redirect.Close()
	if res := s.Post(t.Context(), redirect.URL, http.Header{}, []byte(`{}`)); res.Status != 302 || res.Err == nil {
		t.Fatalf("redirect: %+v", res)
	}
	if AckTimeout != 10*time.Second {
		t.Errorf("AckTimeout = %s, spec §6.3 says 10 s", AckTimeout)
	}
}

// TestAnswerKeptFromPublicAddresses: the first KiB of a public receiver's
// answer is kept (a loopback receiver stands in for one here); a private
// one's is withheld.
func TestAnswerKeptFromPublicAddresses(t *testing.T) {
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		w.Write([]byte(strings.Repeat("x", 2000)))
	}))
	defer rc.Close()
	s := newSender(true, time.Second)
	if res := s.Post(t.Context(), rc.URL, http.Header{}, []byte(`{}`)); res.Status != 400 || res.Excerpt != "" || !res.Withheld {
		t.Errorf("private receiver: %+v", res)
	}
	s.public = func(netip.Addr) bool { return true }
	if res := s.Post(t.Context(), rc.URL, http.Header{}, []byte(`{}`)); res.Status != 400 || len(res.Excerpt) != excerptLimit || res.Withheld {
		t.Errorf("public receiver: status %d, %d bytes kept, withheld %v", res.Status, len(res.Excerpt), res.Withheld)
	}
}
