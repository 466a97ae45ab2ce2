package portal_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"kycd/decision"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/portal"
	"kycd/seal"
	"kycd/server"
	"kycd/server/contracttest"
	"kycd/store"
	"kycd/store/storetest"
	"kycd/verification"
	"kycd/webhook"
)

// stack is kycd as an integrator and an applicant's browser reach it: the
// API and the portal on one real HTTP server, the job runner with the
// lifecycle's jobs and the webhook dispatcher, and a webhook receiver
// registered through the API as the organization's sandbox endpoint.
type stack struct {
	t      *testing.T
	st     *store.Store
	svc    *verification.Service
	org    storetest.Org
	srv    *httptest.Server
	runner *jobs.Runner
	recv   *receiver
	key    string // the API key api calls with: the sandbox key unless a test changes it
}

func newStack(t *testing.T) *stack { return newEngineStack(t, nil) }

// newEngineStack is newStack with the decision engine that engine makes
// on the stack's store (nil: the manual engine, which sends every request
// to review).
func newEngineStack(t *testing.T, engine func(*store.Store) decision.Engine) *stack {
	t.Helper()
	st := storetest.Open(t)
	unlimited := 0
	s := &stack{t: t, st: st, org: storetest.MustOrg(t, st, "acme", &unlimited)}
	s.key = s.org.SandboxKey
	// The service needs the server's address for its links, and the
	// server needs the service: start the server on an empty mux, then
	// fill it (ServeMux allows registering while serving).
	mux := http.NewServeMux()
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	box, err := seal.New(bytes.Repeat([]byte{3}, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	var eng decision.Engine
	if engine != nil {
		eng = engine(st)
	}
	s.svc = verification.New(st, eng, s.srv.URL+"/portal", nil)
	// The webhook receiver listens on loopback: private targets allowed,
	// as kycd serve --allow-private-webhooks does.
	api, err := server.New(server.Options{Store: st, Secrets: box, KYC: s.svc, BaseURL: s.srv.URL,
		PortalURL: s.srv.URL + "/portal", Version: "test", AllowPrivateWebhooks: true})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/", api.Handler())
	// The portal beside the API, at the path its links point to (the API's
	// route table does not mount it yet).
	mux.Handle("/portal/", portal.New(portal.Options{Service: s.svc, Store: st}))
	// The organization's page the done step sends the applicant back to.
	mux.HandleFunc("GET /thanks", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang="en"><title>Shop</title><h1 id="thanks">Back at the shop</h1></html>`)
	})

	s.recv = &receiver{}
	rs := httptest.NewServer(s.recv)
	t.Cleanup(rs.Close)
	ep := s.api("POST", "/v1/webhook-endpoints", map[string]any{"url": rs.URL}, http.StatusCreated)
	s.recv.setSecret(ep["secret"].(string))

	s.runner = jobs.New(jobs.Options{Store: st})
	s.svc.RegisterJobs(s.runner)
	(&webhook.Dispatcher{Store: st, Box: box, Sender: webhook.NewSender(true)}).Register(s.runner)
	return s
}

// api calls the API with s.key (the organization's sandbox key unless a
// test chose another) and returns the JSON answer, failing unless the
// status is want.
func (s *stack) api(method, path string, body any, want int) map[string]any {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(s.t.Context(), method, s.srv.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || res.StatusCode != want {
		s.t.Fatalf("%s %s: %d, want %d (%v): %s", method, path, res.StatusCode, want, err, b)
	}
	return m
}

// create makes a KYC request for a new applicant from Germany through the
// API and returns its portal link and id.
func (s *stack) create(wf kyc.WorkflowType, redirect string) (link, id string) {
	s.t.Helper()
	body := map[string]any{"workflowType": wf,
		"applicant": map[string]any{"firstName": "Erika", "lastName": "Mustermann", "country": "DE"}}
	if redirect != "" {
		body["redirectUrl"] = redirect
	}
	r := s.api("POST", "/v1/kyc-requests", body, http.StatusCreated)
	if r["status"] != "link_generated" {
		s.t.Fatalf("created: %v", r)
	}
	return r["portalUrl"].(string), r["id"].(string)
}

// status returns the request's status as the API reports it.
func (s *stack) status(id string) kyc.KYCStatus {
	s.t.Helper()
	return kyc.KYCStatus(s.api("GET", "/v1/kyc-requests/"+id, nil, http.StatusOK)["status"].(string))
}

// openedAt returns the request's portalOpenedAt as the API reports it
// (nil until the applicant opened the link).
func (s *stack) openedAt(id string) any {
	s.t.Helper()
	return s.api("GET", "/v1/kyc-requests/"+id, nil, http.StatusOK)["portalOpenedAt"]
}

// wantDocument checks the document details stored for request id.
func (s *stack) wantDocument(id string, want kyc.DocumentData) {
	s.t.Helper()
	r, err := s.st.FindKYCRequest(s.t.Context(), s.org.ID, kyc.Sandbox, id)
	if err != nil {
		s.t.Fatal(err)
	}
	if r.DocumentData == nil || *r.DocumentData != want {
		s.t.Errorf("document data=%+v, want %+v", r.DocumentData, want)
	}
}

// runJobs runs every job that is due: processing, then the deliveries.
func (s *stack) runJobs() {
	s.t.Helper()
	if _, err := s.runner.RunOnce(s.t.Context()); err != nil {
		s.t.Fatal(err)
	}
}

// wantWebhooks checks that the receiver got exactly these events for the
// request, each once and correctly signed.
func (s *stack) wantWebhooks(id string, want ...kyc.EventType) {
	s.t.Helper()
	got, bad := s.recv.received(id)
	if len(bad) > 0 {
		s.t.Errorf("rejected deliveries: %v", bad)
	}
	slices.Sort(got)
	w := make([]string, len(want))
	for i, e := range want {
		w[i] = string(e)
	}
	slices.Sort(w)
	if !slices.Equal(got, w) {
		s.t.Errorf("webhooks=%v, want %v", got, w)
	}
}

// receiver is an integrator's webhook endpoint: it verifies each
// delivery's signature as integrators are told to, and records the event.
type receiver struct {
	mu     sync.Mutex
	secret string
	events map[string][]string // resourceId -> event types
	bad    []string
}

func (rc *receiver) setSecret(s string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secret = s
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err == nil {
		err = webhook.Verify(rc.secret, r.Header.Get("X-Svc-Signature"), body, time.Now())
	}
	var ev struct{ EventType, ResourceID string }
	if err == nil {
		err = json.Unmarshal(body, &ev)
	}
	if err == nil {
		err = contracttest.CheckEvent(r.Header, body) // issue 23 item 21
	}
	if err != nil {
		rc.bad = append(rc.bad, fmt.Sprintf("%s: %v", r.Header.Get("X-Svc-Event"), err))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if rc.events == nil {
		rc.events = map[string][]string{}
	}
	rc.events[ev.ResourceID] = append(rc.events[ev.ResourceID], ev.EventType)
}

func (rc *receiver) received(id string) (events, bad []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.events[id]), slices.Clone(rc.bad)
}
