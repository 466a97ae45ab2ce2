package cmd_test

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"kycd/server/contracttest"
	"kycd/webhook"
)

// proc is kycd serve running as a child process.
type proc struct {
	cmd    *exec.Cmd
	addr   string
	mu     sync.Mutex
	stderr strings.Builder
	done   chan error
}

func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// startServe starts kycd serve on a free port and waits until it listens.
func startServe(t *testing.T, db string, args ...string) *proc {
	t.Helper()
	c := exec.Command(os.Args[0], append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, args...)...)
	c.Env = append(os.Environ(), "KYCD_TEST_EXEC=1")
	errPipe, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: c, done: make(chan error, 1)}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "kycd serving" {
				ready <- rec.Addr
			}
		}
		p.done <- c.Wait()
	}()
	t.Cleanup(func() {
		if c.ProcessState == nil {
			c.Process.Kill()
		}
	})
	select {
	case p.addr = <-ready:
	case err := <-p.done:
		t.Fatalf("kycd serve exited early: %v\n%s", err, p.log())
	case <-time.After(20 * time.Second):
		t.Fatalf("kycd serve did not start:\n%s", p.log())
	}
	return p
}

// logs reports whether the log shows s within 10 s. The server writes a
// request's log line after its response, from another process read
// through a pipe: a fixed 50 ms wait could miss it on a loaded machine
// (the child or the pipe reader not scheduled in time), so this polls.
func (p *proc) logs(s string) bool {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if strings.Contains(p.log(), s) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

func (p *proc) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-p.done:
		return err
	case <-time.After(40 * time.Second):
		t.Fatalf("kycd serve did not stop:\n%s", p.log())
		return nil
	}
}

var bootstrapKey = regexp.MustCompile(`svc_test_[0-9A-Z]{26}\.[0-9A-Za-z]{43}`)

func post(t *testing.T, addr, key, path, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	var m map[string]any
	json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

// TestServe covers the life of a server: the bootstrap key on a new file,
// a key revoked by the CLI while it runs, SIGTERM letting an in-flight
// request finish, and no second bootstrap on restart.
func TestServe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "kyc.db")
	p := startServe(t, db)
	key := bootstrapKey.FindString(p.log())
	if key == "" || !strings.Contains(p.log(), "shown only this once") {
		t.Fatalf("no bootstrap key on stderr:\n%s", p.log())
	}
	status, a := post(t, p.addr, key, "/v1/applicants", `{"firstName":"Ada","lastName":"Lovelace"}`)
	if status != 201 {
		t.Fatalf("create: %d %v", status, a)
	}
	if strings.Contains(p.log(), key[strings.Index(key, "."):]+"\"") || strings.Count(p.log(), key) != 1 {
		t.Errorf("the key appears in the log beyond its one-time display")
	}
	// The request id of a response is in the server's log line for it.
	res, err := http.Get("http://" + p.addr + "/v1/applicants")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if id := res.Header.Get("X-Request-Id"); id == "" || !p.logs(`"request_id":"`+id+`"`) {
		t.Errorf("request id %q not in the log", id)
	}
	// A request net/http refuses itself (no Host) is answered in the
	// envelope with a logged request id too (issue 23 item 23).
	raw, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := io.WriteString(raw, "GET /healthz HTTP/1.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	bad, err := http.ReadResponse(bufio.NewReader(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	badBody, _ := io.ReadAll(bad.Body)
	bad.Body.Close()
	if id := bad.Header.Get("X-Request-Id"); bad.StatusCode != 400 || bad.Header.Get("Content-Type") != "application/json" ||
		!strings.Contains(string(badBody), `"VALIDATION_ERROR"`) || id == "" || !p.logs(`"request_id":"`+id+`"`) {
		t.Errorf("no Host: %d %v %s", bad.StatusCode, bad.Header, badBody)
	}

	// A second key made by the CLI works at once; revoked by the CLI, it
	// fails on its very next request.
	org := regexp.MustCompile(`org_[0-9A-Z]{26}`).FindString(p.log())
	code, out, _ := run(t, "keys", "create", "--db", db, "--org", org, "--env", "sandbox")
	if code != 0 {
		t.Fatal("keys create failed")
	}
	k2 := strings.TrimSpace(out)
	if status, _ := post(t, p.addr, k2, "/v1/applicants", `{"firstName":"B","lastName":"C"}`); status != 201 {
		t.Fatalf("new key: %d", status)
	}
	if code, _, errOut := run(t, "keys", "revoke", "--db", db, k2[9:35]); code != 0 {
		t.Fatalf("revoke: %s", errOut)
	}
	if status, body := post(t, p.addr, k2, "/v1/applicants", `{"firstName":"B","lastName":"C"}`); status != 401 || body["error"].(map[string]any)["reason"] != "revoked_api_key" {
		t.Fatalf("revoked key: %d %v", status, body)
	}

	// SIGTERM while a request is half sent: the request completes, then
	// the process exits cleanly.
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", "http://"+p.addr+"/v1/applicants", pr)
	req.Header.Set("Authorization", "Bearer "+key)
	type result struct {
		status int
		err    error
	}
	resc := make(chan result, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			resc <- result{0, err}
			return
		}
		res.Body.Close()
		resc <- result{res.StatusCode, nil}
	}()
	fmt.Fprint(pw, `{"firstName":"In","lastName":`)
	time.Sleep(200 * time.Millisecond) // let the server start reading the body
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	fmt.Fprint(pw, `"Flight"}`)
	pw.Close()
	if r := <-resc; r.err != nil || r.status != 201 {
		t.Fatalf("in-flight request during shutdown: %d %v", r.status, r.err)
	}
	if err := p.wait(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, p.log())
	}
	if !strings.Contains(p.log(), `"msg":"stopped"`) {
		t.Errorf("no clean stop in the log:\n%s", p.log())
	}
	// The in-flight applicant is in the file, and a restart prints no new key.
	if n := countApplicants(t, db); n != 3 {
		t.Errorf("%d applicants on disk, want 3", n)
	}
	p2 := startServe(t, db)
	if bootstrapKey.MatchString(p2.log()) {
		t.Errorf("restart printed a new key:\n%s", p2.log())
	}
	if status, _ := post(t, p2.addr, key, "/v1/applicants", `{"firstName":"D","lastName":"E"}`); status != 201 {
		t.Errorf("bootstrap key after restart: %d", status)
	}
	p2.cmd.Process.Signal(syscall.SIGINT)
	if err := p2.wait(t); err != nil {
		t.Errorf("exit after SIGINT: %v", err)
	}
}

// TestKill9KeepsAcknowledgedWrites: every applicant whose 201 reached the
// client is in the file after the process is killed without warning.
func TestKill9KeepsAcknowledgedWrites(t *testing.T) {
	db := newDB(t)
	code, out, _ := run(t, "orgs", "create", "--db", db, "--name", "k9")
	org := strings.TrimSpace(out)
	code2, out2, _ := run(t, "keys", "create", "--db", db, "--org", org, "--env", "sandbox", "--rpm", "0")
	if code != 0 || code2 != 0 {
		t.Fatal("setup failed")
	}
	key := strings.TrimSpace(out2)
	p := startServe(t, db)

	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body := fmt.Sprintf(`{"firstName":"W%d","lastName":"N%d"}`, w, i)
				req, _ := http.NewRequest("POST", "http://"+p.addr+"/v1/applicants", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					return // the server is gone
				}
				var a struct{ ID string }
				json.NewDecoder(res.Body).Decode(&a)
				res.Body.Close()
				if res.StatusCode == 201 {
					mu.Lock()
					acked = append(acked, a.ID)
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(700 * time.Millisecond)
	p.cmd.Process.Kill() // SIGKILL: no shutdown, no final checkpoint
	p.wait(t)
	close(stop)
	wg.Wait()
	if len(acked) < 50 {
		t.Fatalf("only %d writes acknowledged before the kill", len(acked))
	}
	conn, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	missing := 0
	for _, id := range acked {
		var n int
		if err := conn.QueryRow(`SELECT count(*) FROM applicants WHERE id = ?`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			missing++
		}
	}
	var integrity string
	conn.QueryRow(`PRAGMA integrity_check`).Scan(&integrity)
	if missing > 0 || integrity != "ok" {
		t.Fatalf("%d of %d acknowledged applicants lost; integrity %q", missing, len(acked), integrity)
	}
	t.Logf("%d acknowledged writes, all present after kill -9", len(acked))
}

func countApplicants(t *testing.T, db string) int {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT count(*) FROM applicants`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestServeRefusesNewerDatabase: a file from a newer kycd is refused with
// a message that says so, and no key is printed.
func TestServeRefusesNewerDatabase(t *testing.T) {
	db := newDB(t)
	if code, _, _ := run(t, "orgs", "create", "--db", db, "--name", "x"); code != 0 {
		t.Fatal("setup")
	}
	conn, _ := sql.Open("sqlite", "file:"+db)
	conn.Exec(`PRAGMA user_version = 999`)
	conn.Close()
	code, _, errOut := run(t, "serve", "--db", db, "--addr", "127.0.0.1:0")
	if code != 1 || !strings.Contains(errOut, "newer kycd") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestWebhookEndToEnd: with kycd serve running, an operator adds an
// endpoint and sends it the test event from the CLI; the running server's
// job runner delivers it, signed with the secret the CLI printed.
func TestWebhookEndToEnd(t *testing.T) {
	db := filepath.Join(t.TempDir(), "kyc.db")
	type delivery struct {
		header http.Header
		body   []byte
	}
	got := make(chan delivery, 4)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if err := contracttest.CheckEvent(r.Header, b); err != nil {
			t.Error(err)
		}
		got <- delivery{r.Header.Clone(), b}
	}))
	defer rc.Close()
	// The receiver listens on loopback: both the server and the CLI need
	// the operator's switch for that (issue #9).
	p := startServe(t, db, "--allow-private-webhooks")
	org := regexp.MustCompile(`org_[0-9A-Z]{26}`).FindString(p.log())
	if code, _, errOut := run(t, "webhooks", "add", "--db", db, "--org", org, "--env", "sandbox", "--url", rc.URL); code != 1 ||
		!strings.Contains(errOut, "private or internal") {
		t.Errorf("loopback endpoint without --allow-private-webhooks: %d %q", code, errOut)
	}
	code, out, errOut := run(t, "webhooks", "add", "--db", db, "--org", org, "--env", "sandbox", "--url", rc.URL, "--event", "svc.webhook.test",
		"--allow-private-webhooks")
	lines := strings.Fields(out)
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], "whsec_") {
		t.Fatalf("webhooks add: %d %q %q", code, out, errOut)
	}
	endpointID, secret := lines[0], lines[1]
	if code, _, errOut := run(t, "webhooks", "add", "--db", db, "--org", org, "--env", "live", "--url", rc.URL); code != 1 || !strings.Contains(errOut, "https") {
		t.Errorf("live http endpoint: %d %q", code, errOut)
	}
	code, out, errOut = run(t, "webhooks", "test", "--db", db, endpointID)
	if code != 0 || !strings.HasPrefix(out, "whd_") {
		t.Fatalf("webhooks test: %d %q %q", code, out, errOut)
	}
	select {
	case d := <-got:
		if err := webhook.Verify(secret, d.header.Get("X-Svc-Signature"), d.body, time.Now()); err != nil {
			t.Errorf("signature: %v", err)
		}
		if d.header.Get("X-Svc-Delivery") != strings.TrimSpace(out) || d.header.Get("X-Svc-Event") != "svc.webhook.test" {
			t.Errorf("headers: %v", d.header)
		}
		var body map[string]any
		if json.Unmarshal(d.body, &body) != nil || !strings.HasPrefix(fmt.Sprint(body["eventId"]), "kev_") || body["organizationId"] != org {
			t.Errorf("body: %s", d.body)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("no delivery arrived:\n%s", p.log())
	}
	if code, out, _ := run(t, "webhooks", "list", "--db", db); code != 0 || !strings.Contains(out, endpointID) || strings.Contains(out, secret) {
		t.Errorf("webhooks list: %d %s", code, out)
	}
	if code, _, _ := run(t, "webhooks", "disable", "--db", db, endpointID); code != 0 {
		t.Error("disable failed")
	}
	if code, _, errOut := run(t, "webhooks", "test", "--db", db, endpointID); code != 1 || !strings.Contains(errOut, "disabled") {
		t.Errorf("test to a disabled endpoint: %d %q", code, errOut)
	}
}

// TestServeTrustedProxies: a --trusted-proxies entry that is no address
// range is refused before anything starts (issue 23 item 8).
func TestServeTrustedProxies(t *testing.T) {
	db := newDB(t)
	code, _, errOut := run(t, "serve", "--db", db, "--addr", "127.0.0.1:0", "--trusted-proxies", "10.0.0.0/8,proxy.example")
	if code != 1 || !strings.Contains(errOut, `--trusted-proxies: "proxy.example" is neither an address range`) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
