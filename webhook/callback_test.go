package webhook_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/webhook"
)

// callbackReceiver records what reaches a callback URL and answers status.
type callbackReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	status  int
	headers []http.Header
	bodies  []string
}

func newCallbackReceiver(t *testing.T, status int) *callbackReceiver {
	rc := &callbackReceiver{status: status}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.headers, rc.bodies = append(rc.headers, r.Header.Clone()), append(rc.bodies, string(b))
		st := rc.status
		rc.mu.Unlock()
		w.WriteHeader(st)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *callbackReceiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.bodies)
}

func (f *fixture) callbackSecret(t *testing.T, env kyc.Environment) string {
	t.Helper()
	var cs *store.CallbackSecret
	err := f.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		cs, _, err = tx.EnsureCallbackSecret(f.box, f.org.ID, env)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return cs.Secret
}

func (f *fixture) kycEvent(t *testing.T, env kyc.Environment, callbackURL string) []string {
	t.Helper()
	var ids []string
	err := f.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		ev := tx.NewEvent(f.org.ID, env, kyc.EventKYCApproved, "kyc_x")
		ev.Payload, ev.CallbackURL = []byte(`{"eventType":"svc.kyc.request.approved","resourceId":"kyc_x"}`), callbackURL
		ids, err = tx.RecordEvent(ev, "")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestCallbackDelivery: a KYC event with a callback URL is delivered
// there as to an endpoint (same body and headers), signed with the
// organization's callback secret instead of an endpoint's.
func TestCallbackDelivery(t *testing.T) {
	f := newFixture(t)
	cb := newCallbackReceiver(t, 200)
	ep := newCallbackReceiver(t, 200)
	endpoint := f.endpoint(t, kyc.Sandbox, ep.srv.URL)
	secret := f.callbackSecret(t, kyc.Sandbox)
	ids := f.kycEvent(t, kyc.Sandbox, cb.srv.URL+"/kyc-done?ref=42")
	if len(ids) != 2 {
		t.Fatalf("%d deliveries, want the endpoint's and the callback's", len(ids))
	}
	f.runOnce(t)
	if cb.count() != 1 || ep.count() != 1 || cb.bodies[0] != ep.bodies[0] {
		t.Fatalf("callback got %d, endpoint %d", cb.count(), ep.count())
	}
	h := cb.headers[0]
	if err := webhook.Verify(secret, h.Get("X-Svc-Signature"), []byte(cb.bodies[0]), f.clock.Now()); err != nil || strings.Count(h.Get("X-Svc-Signature"), "sig=") != 1 {
		t.Errorf("callback signature %q: %v", h.Get("X-Svc-Signature"), err)
	}
	if webhook.Verify(endpoint.Secret, h.Get("X-Svc-Signature"), []byte(cb.bodies[0]), f.clock.Now()) == nil {
		t.Errorf("the callback was signed with the endpoint's secret")
	}
	if h.Get("X-Svc-Event") != "svc.kyc.request.approved" || h.Get("X-Svc-Delivery") != ids[1] || h.Get("User-Agent") != webhook.UserAgent ||
		h.Get("Content-Type") != "application/json" {
		t.Errorf("callback headers %v", h)
	}
	d, err := f.st.FindDelivery(t.Context(), f.org.ID, kyc.Sandbox, ids[1])
	if err != nil || d.EndpointID != "" || d.CallbackURL != cb.srv.URL+"/kyc-done?ref=42" || d.Status != "delivered" {
		t.Errorf("callback delivery %+v, %v", d, err)
	}
	// A test event goes to its endpoint only, never to a callback.
	if ids := f.event(t, kyc.Sandbox, kyc.EventWebhookTest); len(ids) != 1 {
		t.Errorf("test event: %d deliveries", len(ids))
	}
}

// TestCallbackRetries: a failing callback URL is retried on the endpoints'
// schedule; when the last retry fails the delivery is failed, and no
// endpoint is disabled (the callback has none) nor e-mail sent.
func TestCallbackRetries(t *testing.T) {
	f := newFixture(t)
	cb := newCallbackReceiver(t, 500)
	f.callbackSecret(t, kyc.Sandbox)
	endpoint := f.endpoint(t, kyc.Sandbox, "http://127.0.0.1:1/other")
	ids := f.kycEvent(t, kyc.Sandbox, cb.srv.URL)
	start := f.clock.Now()
	for _, offset := range []time.Duration{0, 1, 17, 137, 1037, 8237} {
		f.clock.Advance(offset*time.Second - f.clock.Now().Sub(start))
		f.runOnce(t)
	}
	f.clock.Advance(48 * time.Hour)
	f.runOnce(t)
	if cb.count() != 6 {
		t.Fatalf("%d attempts at the callback, want 6", cb.count())
	}
	status, _, _ := f.st.DeliveryStatus(t.Context(), ids[1])
	eps, _ := f.st.FindWebhookEndpoints(t.Context(), f.org.ID, kyc.Sandbox)
	mails, _ := f.st.FindEmails(t.Context())
	// The endpoint on port 1 failed six times too and was disabled: one
	// e-mail, about it.
	if status != "failed" || len(eps) != 1 || eps[0].ID != endpoint.ID || len(mails) != 1 || !strings.Contains(mails[0].Body, endpoint.ID) {
		t.Fatalf("callback delivery %s, endpoints %+v, e-mails %+v", status, eps, mails)
	}
}

// TestCallbackWithoutSecret: a request from before callback secrets
// existed has nothing to sign with; the attempt fails with the way out
// and is retried, so rotating a secret in lets the next one through.
func TestCallbackWithoutSecret(t *testing.T) {
	f := newFixture(t)
	cb := newCallbackReceiver(t, 200)
	ids := f.kycEvent(t, kyc.Sandbox, cb.srv.URL)
	f.runOnce(t)
	got, _ := f.st.FindAttempts(t.Context(), ids[0])
	if cb.count() != 0 || len(got) != 1 || !strings.Contains(got[0].Error, "callback-secret") || got[0].NextRetryAt == nil {
		t.Fatalf("attempts %+v", got)
	}
	f.callbackSecret(t, kyc.Sandbox)
	f.clock.Advance(time.Second)
	f.runOnce(t)
	if cb.count() != 1 {
		t.Fatalf("after the secret was made: %d deliveries", cb.count())
	}
}
