package webhook_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/seal"
	"kycd/store"
	"kycd/store/storetest"
	"kycd/webhook"
)

// syncBuffer is a log sink the runner's goroutines may write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestDisabledWithoutContactSaysSo is issue 23 item 22: an organization
// without a contact address (as serve's first start made it) used to get
// an e-mail queued to "(no contact address: …)", which the relay refused
// for good ("failed to parse mail address"). Now nothing is queued and
// the log says that nobody is notified and how to set an address.
func TestDisabledWithoutContactSaysSo(t *testing.T) {
	st, clock := storetest.Open(t), &storetest.Clock{}
	st.Now = clock.Now
	box, err := seal.New([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	org := storetest.MustOrg(t, st, "hooks", nil)
	if err := st.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetContactEmail(org.ID, "") }); err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	f := &fixture{st: st, clock: clock, box: box, runner: jobs.New(jobs.Options{Store: st, Now: clock.Now}), org: org}
	(&webhook.Dispatcher{Store: st, Box: box, Sender: webhook.NewSender(true), Now: clock.Now,
		Log: slog.New(slog.NewTextHandler(&logs, nil))}).Register(f.runner)
	rc := newReceiver(t, f.clock, 500)
	ep := f.endpoint(t, kyc.Sandbox, rc.srv.URL)
	rc.secret = ep.Secret
	f.event(t, kyc.Sandbox, kyc.EventWebhookTest)
	start := f.clock.Now()
	for _, offset := range []time.Duration{0, 1, 17, 137, 1037, 8237} {
		f.clock.Advance(offset*time.Second - f.clock.Now().Sub(start))
		if n := f.runOnce(t); n != 1 {
			t.Fatalf("no attempt at %d s", offset)
		}
	}
	eps, _ := f.st.FindWebhookEndpoints(t.Context(), org.ID, kyc.Sandbox)
	if len(eps) != 1 || eps[0].Enabled {
		t.Fatalf("endpoint not disabled: %+v", eps)
	}
	if mails, _ := f.st.FindEmails(t.Context()); len(mails) != 0 {
		t.Errorf("an e-mail was queued with no address to send it to: %+v", mails)
	}
	if l := logs.String(); !strings.Contains(l, "no contact address") || !strings.Contains(l, "--contact-email") {
		t.Errorf("the log does not say the notice cannot be sent: %s", l)
	}
}
