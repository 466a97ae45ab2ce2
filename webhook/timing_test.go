package webhook_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/webhook"
)

// TestRetryCountsFromAttemptEnd: spec §6.3's delays run from the end of
// the failed attempt. A receiver that takes 10 s to fail gets its "1 s"
// retry 11 s after the attempt started, not 1 s after (which was at once,
// the attempt having already taken longer).
func TestRetryCountsFromAttemptEnd(t *testing.T) {
	f := newFixture(t)
	var got atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		f.clock.Advance(10 * time.Second) // the receiver's 10 seconds
		w.WriteHeader(http.StatusGatewayTimeout)
	}))
	defer slow.Close()
	f.endpoint(t, kyc.Sandbox, slow.URL)
	ids := f.event(t, kyc.Sandbox, kyc.EventWebhookTest)
	start := f.clock.Now()
	f.runOnce(t)
	attempts, _ := f.st.FindAttempts(t.Context(), ids[0])
	if len(attempts) != 1 || attempts[0].NextRetryAt == nil || !attempts[0].StartedAt.Equal(start) {
		t.Fatalf("attempts: %+v", attempts)
	}
	if want := start.Add(11 * time.Second); !attempts[0].NextRetryAt.Equal(want) {
		t.Fatalf("next retry at start+%s, want start+11s (end of the attempt + 1 s)", attempts[0].NextRetryAt.Sub(start))
	}
	// Just before end+1 s nothing is due; at end+1 s the retry goes out.
	f.clock.Advance(start.Add(11*time.Second - time.Millisecond).Sub(f.clock.Now()))
	if n := f.runOnce(t); n != 0 || got.Load() != 1 {
		t.Fatalf("retry ran %d jobs before its time", n)
	}
	f.clock.Advance(time.Millisecond)
	if n := f.runOnce(t); n != 1 || got.Load() != 2 {
		t.Fatalf("retry at end+1 s: %d jobs, %d attempts", n, got.Load())
	}
}

// TestOneSignatureDuringRotation: spec §6.4 defines exactly one sig=. A
// rotated endpoint's deliveries carry one, made with the new secret, unless
// the endpoint signs dually; then the old secret signs too, until the
// overlap ends.
func TestOneSignatureDuringRotation(t *testing.T) {
	f := newFixture(t)
	headers := make(chan string, 8)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers <- r.Header.Get("X-Svc-Signature")
	}))
	defer rc.Close()
	ep := f.endpoint(t, kyc.Sandbox, rc.URL)
	rotate := func(dual *bool) string {
		var rotated *kyc.WebhookEndpoint
		err := f.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
			rotated, err = tx.RotateWebhookSecret(f.box, f.org.ID, kyc.Sandbox, ep.ID, 24*time.Hour, dual)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return rotated.Secret
	}
	deliver := func() string {
		f.event(t, kyc.Sandbox, kyc.EventWebhookTest)
		f.runOnce(t)
		return <-headers
	}
	verify := func(secret, header string) bool {
		return webhook.Verify(secret, header, []byte(`{"eventType":"svc.webhook.test","name":"Zoë"}`), f.clock.Now()) == nil
	}

	newSecret := rotate(nil)
	h := deliver()
	if strings.Count(h, "sig=") != 1 || !verify(newSecret, h) || verify(ep.Secret, h) {
		t.Errorf("after a rotation: %s, want one sig= by the new secret", h)
	}

	on := true
	newer := rotate(&on)
	h = deliver()
	if strings.Count(h, "sig=") != 2 || !verify(newer, h) || !verify(newSecret, h) || !strings.HasPrefix(h, webhook.Sign(newer, f.clock.Now(), []byte(`{"eventType":"svc.webhook.test","name":"Zoë"}`))) {
		t.Errorf("dual signing during the overlap: %s, want the new secret's sig= first, then the old one's", h)
	}
	f.clock.Advance(25 * time.Hour)
	h = deliver()
	if strings.Count(h, "sig=") != 1 || !verify(newer, h) {
		t.Errorf("after the overlap: %s", h)
	}
}
