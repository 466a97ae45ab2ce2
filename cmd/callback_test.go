package cmd_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/seal"
	"kycd/store"
	"kycd/webhook"
)

// TestOrgsCallbackSecretRotate: the operator can make or rotate an
// organization's callback secret per environment; it is printed once, and
// the server signs callback deliveries with the newest one.
func TestOrgsCallbackSecretRotate(t *testing.T) {
	db := newDB(t)
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme")
	org := strings.TrimSpace(out)
	code, first, errOut := run(t, "orgs", "callback-secret", "rotate", "--db", db, "--org", org, "--env", "sandbox")
	if code != 0 || !strings.HasPrefix(first, "whsec_") || strings.Count(first, "\n") != 1 {
		t.Fatalf("first rotate: %d %q %q", code, first, errOut)
	}
	code, second, errOut := run(t, "orgs", "callback-secret", "rotate", "--db", db, "--org", org, "--env", "sandbox", "--overlap-hours", "2", "--dual-sign")
	if code != 0 || !strings.HasPrefix(second, "whsec_") || second == first {
		t.Fatalf("second rotate: %d %q %q", code, second, errOut)
	}
	s, err := store.Open(t.Context(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.FindCallbackSecret(t.Context(), org, kyc.Sandbox)
	s.Close()
	if err != nil || !cs.DualSign || cs.PreviousUntil == nil || cs.PreviousUntil.Sub(*cs.RotatedAt) != 2*time.Hour {
		t.Errorf("stored: %+v %v", cs, err)
	}
	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--org", "org_01JCXW6Y0Q4H3T2V5N7M8K9P0R", "--env", "live"}, "not found"},
		{[]string{"--org", org, "--env", "live", "--overlap-hours", "200"}, "0 to 168"},
	} {
		code, _, errOut := run(t, append([]string{"orgs", "callback-secret", "rotate", "--db", db}, tt.args...)...)
		if code != 1 || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("%v: %d %q", tt.args, code, errOut)
		}
	}
	// What the server signs callback deliveries with is what was printed.
	key, _, err := seal.LoadOrCreateKeyFile(db + ".secret-key")
	if err != nil {
		t.Fatal(err)
	}
	box, _ := seal.New(key)
	got := make(chan string, 1)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(strings.TrimSpace(second), r.Header.Get("X-Svc-Signature"), b, time.Now()); err != nil {
			t.Errorf("callback signature: %v", err)
		}
		got <- r.Header.Get("X-Svc-Signature")
	}))
	defer rc.Close()
	s = openDBWithKey(t, db) // the event's delivery is written by the store, which now needs the key
	defer s.Close()
	err = s.InTx(t.Context(), func(tx *store.Tx) error {
		ev := tx.NewEvent(org, kyc.Sandbox, kyc.EventKYCApproved, "kyc_x")
		ev.Payload, ev.CallbackURL = []byte(`{}`), rc.URL
		_, err := tx.RecordEvent(ev, "")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	runner := jobs.New(jobs.Options{Store: s})
	(&webhook.Dispatcher{Store: s, Box: box, Sender: webhook.NewSender(true)}).Register(runner)
	if _, err := runner.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if sig := <-got; strings.Count(sig, "sig=") != 2 {
		t.Errorf("dual signing during the overlap: %q", sig)
	}
}
