package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
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

// receiver is a real HTTP receiver that checks every delivery byte for byte
// and answers from a script of statuses (the last repeats).
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	secret string
	mu     sync.Mutex
	script []int
	got    []*http.Request
	bodies [][]byte
	clock  *storetest.Clock
}

func newReceiver(t *testing.T, clock *storetest.Clock, script ...int) *receiver {
	rc := &receiver{t: t, script: script, clock: clock}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		n := len(rc.got)
		rc.got = append(rc.got, r)
		rc.bodies = append(rc.bodies, body)
		status := rc.script[min(n, len(rc.script)-1)]
		rc.mu.Unlock()
		rc.check(r, body)
		w.WriteHeader(status)
		fmt.Fprintf(w, "answer %d", n+1)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// check recomputes the signature independently of package webhook.
func (rc *receiver) check(r *http.Request, body []byte) {
	h := r.Header
	for k, want := range map[string]string{"Content-Type": "application/json", "User-Agent": "Svc-Webhook/1.0", "X-Svc-Event": "svc.webhook.test"} {
		if h.Get(k) != want {
			rc.t.Errorf("%s = %q, want %q", k, h.Get(k), want)
		}
	}
	if !strings.HasPrefix(h.Get("X-Svc-Delivery"), "whd_") {
		rc.t.Errorf("X-Svc-Delivery = %q", h.Get("X-Svc-Delivery"))
	}
	ts := rc.clock.Now().Unix()
	mac := hmac.New(sha256.New, []byte(rc.secret))
	fmt.Fprintf(mac, "%d.%s", ts, body)
	if want := fmt.Sprintf("v1,t=%d,sig=%s", ts, hex.EncodeToString(mac.Sum(nil))); h.Get("X-Svc-Signature") != want {
		rc.t.Errorf("X-Svc-Signature = %q\nwant %q", h.Get("X-Svc-Signature"), want)
	}
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.got)
}

type fixture struct {
	st     *store.Store
	clock  *storetest.Clock
	runner *jobs.Runner
	box    *seal.Box
	org    storetest.Org

	mu       sync.Mutex
	outcomes []string // reported by OnAttempt
}

// newFixture delivers through a sender that allows private addresses, as
// kycd serve --allow-private-webhooks does: the receivers listen on
// loopback. newGuardedFixture's sender does not.
func newFixture(t *testing.T) *fixture { return newSenderFixture(t, true) }

func newGuardedFixture(t *testing.T) *fixture { return newSenderFixture(t, false) }

func newSenderFixture(t *testing.T, allowPrivate bool) *fixture {
	st, clock := storetest.Open(t), &storetest.Clock{}
	st.Now = clock.Now
	box, err := seal.New([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, clock: clock, box: box, runner: jobs.New(jobs.Options{Store: st, Now: clock.Now}), org: storetest.MustOrg(t, st, "hooks", nil)}
	d := &webhook.Dispatcher{Store: st, Box: box, Sender: webhook.NewSender(allowPrivate), Now: clock.Now,
		OnAttempt: func(outcome string) { f.mu.Lock(); f.outcomes = append(f.outcomes, outcome); f.mu.Unlock() }}
	d.Register(f.runner)
	return f
}

func (f *fixture) endpoint(t *testing.T, env kyc.Environment, url string, types ...kyc.EventType) *kyc.WebhookEndpoint {
	t.Helper()
	var ep *kyc.WebhookEndpoint
	err := f.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		ep, err = tx.CreateWebhookEndpoint(f.box, store.NewWebhookEndpoint{OrganizationID: f.org.ID, Environment: env, URL: url, EventTypes: types})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

func (f *fixture) event(t *testing.T, env kyc.Environment, typ kyc.EventType) []string {
	t.Helper()
	var ids []string
	err := f.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		ids, err = tx.RecordEvent(&kyc.Event{OrganizationID: f.org.ID, Environment: env, Type: typ, ResourceID: "we_x",
			Payload: []byte(`{"eventType":"` + string(typ) + `","name":"Zoë"}`)}, "")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func (f *fixture) runOnce(t *testing.T) int {
	t.Helper()
	n, err := f.runner.RunOnce(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRetriesThenDelivered: a receiver that fails three times gets the
// delivery on the fourth attempt, at 0, 1 s, 17 s and 137 s.
func TestRetriesThenDelivered(t *testing.T) {
	f := newFixture(t)
	rc := newReceiver(t, f.clock, 503, 500, 404, 200)
	ep := f.endpoint(t, kyc.Sandbox, rc.srv.URL)
	rc.secret = ep.Secret
	ids := f.event(t, kyc.Sandbox, kyc.EventWebhookTest)
	if len(ids) != 1 {
		t.Fatalf("%d deliveries", len(ids))
	}
	start := f.clock.Now()
	for _, offset := range []time.Duration{0, time.Second, 17 * time.Second, 137 * time.Second} {
		f.clock.Advance(offset - f.clock.Now().Sub(start))
		if n := f.runOnce(t); n != 1 {
			t.Fatalf("no attempt at %s", offset)
		}
	}
	f.clock.Advance(24 * time.Hour)
	if n := f.runOnce(t); n != 0 || rc.count() != 4 {
		t.Fatalf("attempts after delivery: %d more, %d total", n, rc.count())
	}
	status, attempts, _ := f.st.DeliveryStatus(t.Context(), ids[0])
	got, _ := f.st.FindAttempts(t.Context(), ids[0])
	// The receiver is on loopback: its answers are not kept (see
	// TestPrivateAnswersNotKept).
	if status != "delivered" || attempts != 4 || len(got) != 4 || got[0].ResponseStatus != 503 || got[3].ResponseStatus != 200 ||
		got[0].ResponseExcerpt != "" || !got[0].BodyWithheld || got[0].RequestHeaders["X-Svc-Delivery"] != ids[0] || got[2].NextRetryAt == nil {
		t.Fatalf("delivery %s after %d attempts: %+v", status, attempts, got)
	}
	if string(rc.bodies[0]) != `{"eventType":"svc.webhook.test","name":"Zoë"}` || string(rc.bodies[3]) != string(rc.bodies[0]) {
		t.Errorf("bodies differ between attempts: %s / %s", rc.bodies[0], rc.bodies[3])
	}
}

// TestDisabledAfterFiveRetries: when the fifth retry fails the delivery is
// failed, the endpoint disabled with the reason, and the contact e-mailed.
func TestDisabledAfterFiveRetries(t *testing.T) {
	f := newFixture(t)
	rc := newReceiver(t, f.clock, 500)
	ep := f.endpoint(t, kyc.Sandbox, rc.srv.URL)
	rc.secret = ep.Secret
	ids := f.event(t, kyc.Sandbox, kyc.EventWebhookTest)
	start := f.clock.Now()
	for _, offset := range []time.Duration{0, 1, 17, 137, 1037, 8237} {
		f.clock.Advance(offset*time.Second - f.clock.Now().Sub(start))
		if n := f.runOnce(t); n != 1 {
			t.Fatalf("no attempt at %d s", offset)
		}
	}
	f.clock.Advance(48 * time.Hour)
	f.runOnce(t)
	if rc.count() != 6 {
		t.Fatalf("%d attempts, want 6", rc.count())
	}
	status, _, _ := f.st.DeliveryStatus(t.Context(), ids[0])
	eps, _ := f.st.FindWebhookEndpoints(t.Context(), f.org.ID, kyc.Sandbox)
	if status != "failed" || len(eps) != 1 || eps[0].Enabled || !strings.Contains(eps[0].DisabledReason, "6 attempts failed") {
		t.Fatalf("status %s, endpoint %+v", status, eps)
	}
	f.mu.Lock()
	if got, want := strings.Join(f.outcomes, ","), "retry,retry,retry,retry,retry,failed"; got != want {
		t.Errorf("outcomes = %s, want %s", got, want)
	}
	f.mu.Unlock()
	mails, _ := f.st.FindEmails(t.Context())
	if len(mails) != 1 || mails[0].To != "compliance@hooks.example" || !strings.Contains(mails[0].Body, ep.ID) {
		t.Fatalf("e-mails: %+v", mails)
	}
	// A disabled endpoint gets no new deliveries.
	if ids := f.event(t, kyc.Sandbox, kyc.EventWebhookTest); len(ids) != 0 {
		t.Errorf("disabled endpoint got %d deliveries", len(ids))
	}
}

// TestFanOut: subscriptions filter by type, and environments never mix.
func TestFanOut(t *testing.T) {
	f := newFixture(t)
	all := f.endpoint(t, kyc.Sandbox, "http://127.0.0.1:1/all")
	f.endpoint(t, kyc.Sandbox, "http://127.0.0.1:1/aml", kyc.EventAMLCompleted)
	f.endpoint(t, kyc.Live, "https://example.com/live")
	ids := f.event(t, kyc.Sandbox, kyc.EventKYCCreated)
	if len(ids) != 1 {
		t.Fatalf("sandbox KYC event: %d deliveries, want 1 (to %s)", len(ids), all.ID)
	}
	if ids := f.event(t, kyc.Sandbox, kyc.EventAMLCompleted); len(ids) != 2 {
		t.Errorf("sandbox AML event: %d deliveries, want 2", len(ids))
	}
	if ids := f.event(t, kyc.Live, kyc.EventKYCCreated); len(ids) != 1 {
		t.Errorf("live event: %d deliveries, want 1", len(ids))
	}
	if ids := f.event(t, kyc.Sandbox, kyc.EventWebhookTest); len(ids) != 1 {
		t.Errorf("test event: %d deliveries", len(ids))
	}
}

// TestPrivateAddressesRefusedInBothEnvironments: without
// --allow-private-webhooks a receiver on loopback is refused at connect
// time, in sandbox as in live (issue #9: sandbox reached the internal
// network), and nothing reaches it.
func TestPrivateAddressesRefusedInBothEnvironments(t *testing.T) {
	f := newGuardedFixture(t)
	rc := newReceiver(t, f.clock, 200)
	for _, env := range []kyc.Environment{kyc.Sandbox, kyc.Live} {
		f.endpoint(t, env, rc.srv.URL) // httptest listens on 127.0.0.1
		ids := f.event(t, env, kyc.EventWebhookTest)
		f.runOnce(t)
		got, _ := f.st.FindAttempts(t.Context(), ids[0])
		if len(got) != 1 || !strings.Contains(got[0].Error, "private or internal address") || got[0].ResponseStatus != 0 {
			t.Errorf("%s delivery to loopback: attempts %+v", env, got)
		}
	}
	if rc.count() != 0 {
		t.Fatalf("the loopback receiver got %d deliveries", rc.count())
	}
}

// TestPrivateAnswersNotKept: where the operator allows private targets,
// the status of an internal receiver's answer is recorded but not its
// body, so the deliveries API never shows what an internal service said.
func TestPrivateAnswersNotKept(t *testing.T) {
	f := newFixture(t)
	rc := newReceiver(t, f.clock, 200)
	rc.secret = f.endpoint(t, kyc.Sandbox, rc.srv.URL).Secret
	ids := f.event(t, kyc.Sandbox, kyc.EventWebhookTest)
	f.runOnce(t)
	got, _ := f.st.FindAttempts(t.Context(), ids[0])
	if rc.count() != 1 || len(got) != 1 || got[0].ResponseStatus != 200 || got[0].ResponseExcerpt != "" || !got[0].BodyWithheld {
		t.Fatalf("attempts %+v", got)
	}
}

// TestPublic classifies every kind of address, the IPv6 forms that embed
// an IPv4 address by the address they embed.
func TestPublic(t *testing.T) {
	private := []string{
		"127.0.0.1", "127.255.255.254", "10.1.2.3", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1",
		"169.254.169.254", "100.64.0.1", "0.0.0.0", "0.1.2.3", "255.255.255.255", "224.0.0.1", "240.0.0.1",
		"192.0.0.170", "192.0.2.1", "198.18.0.1", "198.51.100.7", "203.0.113.9", "192.88.99.1",
		"::", "::1", "fd00::1", "fd00:ec2::254", "fc00::1", "fe80::1", "fe80::1%eth0", "fec0::1", "ff02::1", "100::1",
		// IPv6 forms of 127.0.0.1 and other internal IPv4 addresses
		"::7f00:1", "::127.0.0.1", "::a9fe:a9fe", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
		"::ffff:0:127.0.0.1", "::ffff:0:8.8.8.8", "2002:7f00:1::", "2002:a00:1::1", "2002:a9fe:a9fe::",
		"64:ff9b::127.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::1", "64:ff9b:1::8.8.8.8",
		"2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:2::1", "2001:db8::1", "3fff::1", "5f00::1",
	}
	public := []string{"93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700::1111", "2a00:1450:4001:80b::200e",
		"::ffff:8.8.8.8", "2002:808:808::1", "64:ff9b::8.8.8.8"}
	for _, a := range private {
		if webhook.Public(mustAddr(a)) {
			t.Errorf("%s counted as public", a)
		}
	}
	for _, a := range public {
		if !webhook.Public(mustAddr(a)) {
			t.Errorf("%s counted as private", a)
		}
	}
}

// TestCheckTarget: the creation-time rule the API and the CLI share
// refuses internal targets in both environments, also by name, unless the
// operator allows them.
func TestCheckTarget(t *testing.T) {
	internal := []string{
		"http://127.0.0.1:8080/hook", "http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/",
		"http://10.0.0.1:2375/containers/json", "http://[::7f00:1]/", "http://[::127.0.0.1]/", "http://[2002:7f00:1::]/",
		"http://[::ffff:0:127.0.0.1]/", "http://[::ffff:127.0.0.1]/", "http://[64:ff9b::7f00:1]/", "http://[64:ff9b:1::1]/",
		"http://localhost:8080/", "http://[fe80::1%25lo]/",
	}
	for _, env := range []kyc.Environment{kyc.Sandbox, kyc.Live} {
		for _, u := range internal {
			if env == kyc.Live {
				u = "https" + strings.TrimPrefix(u, "http")
			}
			if err := webhook.CheckTarget(t.Context(), u, env, false); err == nil || !strings.Contains(err.Error(), "private or internal") {
				t.Errorf("%s %s: %v, want refused as private", env, u, err)
			}
			if err := webhook.CheckTarget(t.Context(), u, env, true); err != nil {
				t.Errorf("%s %s with private targets allowed: %v", env, u, err)
			}
		}
	}
	if err := webhook.CheckTarget(t.Context(), "https://93.184.216.34/hook", kyc.Live, false); err != nil {
		t.Errorf("public address: %v", err)
	}
	if err := webhook.CheckTarget(t.Context(), "http://93.184.216.34/hook", kyc.Live, true); err == nil {
		t.Errorf("http in live passed")
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

// TestSlowEndpointDoesNotDelayOthers: a receiver that hangs holds at most
// PerEndpoint of the runner's slots; another endpoint's delivery goes
// through meanwhile, and the deferred deliveries lose no attempt.
func TestSlowEndpointDoesNotDelayOthers(t *testing.T) {
	st := storetest.Open(t)
	box, _ := seal.New([]byte(strings.Repeat("k", 32)))
	org := storetest.MustOrg(t, st, "slow", nil)
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer slow.Close()
	defer close(release)
	fastGot := make(chan struct{}, 1)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fastGot <- struct{}{} }))
	defer fast.Close()

	runner := jobs.New(jobs.Options{Store: st, Concurrency: 8, PollInterval: 20 * time.Millisecond, ShutdownGrace: time.Second})
	(&webhook.Dispatcher{Store: st, Box: box, Sender: webhook.NewSender(true), PerEndpoint: 2}).Register(runner)
	var slowEP, fastEP *kyc.WebhookEndpoint
	err := st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		if slowEP, err = tx.CreateWebhookEndpoint(box, store.NewWebhookEndpoint{OrganizationID: org.ID, Environment: kyc.Sandbox, URL: slow.URL}); err != nil {
			return err
		}
		fastEP, err = tx.CreateWebhookEndpoint(box, store.NewWebhookEndpoint{OrganizationID: org.ID, Environment: kyc.Sandbox, URL: fast.URL})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	record := func(ep *kyc.WebhookEndpoint) {
		err := st.InTx(t.Context(), func(tx *store.Tx) error {
			ev := tx.NewEvent(org.ID, kyc.Sandbox, kyc.EventWebhookTest, ep.ID)
			ev.Payload = []byte(`{}`)
			_, err := tx.RecordEvent(ev, ep.ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		record(slowEP)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- runner.Start(ctx) }()
	time.Sleep(200 * time.Millisecond) // let the slow deliveries fill what they may
	record(fastEP)
	select {
	case <-fastGot:
	case <-time.After(5 * time.Second):
		t.Fatal("the fast endpoint's delivery waited behind the slow endpoint")
	}
	cancel()
	<-done
	// The deferred slow deliveries used no attempt.
	pending, _ := st.FindJobs(t.Context(), store.KindWebhookDeliver, "pending")
	for _, j := range pending {
		if j.Attempts > 1 {
			t.Errorf("a deferred delivery used %d attempts", j.Attempts)
		}
	}
}

// TestOnAttempt: the hook hears every recorded attempt's outcome.
func TestOnAttempt(t *testing.T) {
	f := newFixture(t)
	rc := newReceiver(t, f.clock, 503, 200)
	rc.secret = f.endpoint(t, kyc.Sandbox, rc.srv.URL).Secret
	f.event(t, kyc.Sandbox, kyc.EventWebhookTest)
	f.runOnce(t)
	f.clock.Advance(time.Second)
	f.runOnce(t)
	f.mu.Lock()
	defer f.mu.Unlock()
	if got, want := strings.Join(f.outcomes, ","), "retry,delivered"; got != want {
		t.Fatalf("outcomes = %s, want %s", got, want)
	}
}
