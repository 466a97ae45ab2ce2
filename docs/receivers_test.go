package docs_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kycd/webhook"
)

// TestReceiversVerifyAsKycdSigns holds the two example receivers to
// kycd's own rule (webhook.Sign and webhook.Verify): the quickstart shows
// them accepting real deliveries, this shows they refuse everything else.
// Each case is also checked against webhook.Verify, so the receivers and
// kycd cannot drift apart unnoticed.
func TestReceiversVerifyAsKycdSigns(t *testing.T) {
	const secret = "whsec_quickstartTestSecret0123456789abcdef"
	body := []byte(`{"eventId":"kev_01M881FT6JZWKB0PF9DS8K05BV","eventType":"svc.kyc.request.approved","publicId":"kyc_x","status":"approved"}`)
	now := time.Now()
	ts := strconv.FormatInt(now.Unix(), 10)
	good := webhook.Sign(secret, now, body)
	sig := func(secret, ts string, body []byte) string {
		t, _ := strconv.ParseInt(ts, 10, 64)
		h := webhook.Sign(secret, time.Unix(t, 0), body)
		return h[strings.Index(h, ",sig=")+5:]
	}
	cases := []struct {
		name   string
		header string
		body   []byte
		ok     bool
	}{
		{"signed by kycd", good, body, true},
		{"dual-signed, new secret first", webhook.SignAll([]string{secret, "whsec_old"}, now, body), body, true},
		{"dual-signed, old secret first", webhook.SignAll([]string{"whsec_old", secret}, now, body), body, true},
		{"an unknown part is ignored", good + ",x=1", body, true},
		{"another secret", webhook.Sign("whsec_other", now, body), body, false},
		{"the body changed", good, bytes.Replace(body, []byte("approved"), []byte("rejected"), 1), false},
		{"no header", "", body, false},
		{"version v2", "v2,t=" + ts + ",sig=" + sig(secret, ts, body), body, false},
		{"no version", "t=" + ts + ",sig=" + sig(secret, ts, body), body, false},
		{"six minutes old", webhook.Sign(secret, now.Add(-6*time.Minute), body), body, false},
		{"six minutes ahead", webhook.Sign(secret, now.Add(6*time.Minute), body), body, false},
		{"two t=", "v1,t=" + ts + ",t=" + ts + ",sig=" + sig(secret, ts, body), body, false},
		{"upper-case hex", "v1,t=" + ts + ",sig=" + strings.ToUpper(sig(secret, ts, body)), body, false},
		{"short sig", "v1,t=" + ts + ",sig=" + sig(secret, ts, body)[:62], body, false},
		{"no sig", "v1,t=" + ts, body, false},
		{"signed over another t", "v1,t=" + strconv.FormatInt(now.Unix()-1, 10) + ",sig=" + sig(secret, ts, body), body, false},
		{"t with a sign", "v1,t=+" + ts + ",sig=" + sig(secret, ts, body), body, false},
	}
	for _, c := range cases {
		if err := webhook.Verify(secret, c.header, c.body, now); (err == nil) != c.ok {
			t.Fatalf("%s: kycd's Verify says %v, the case expects ok=%v: fix the case", c.name, err, c.ok)
		}
	}
	receivers := map[string]func(t *testing.T, addr string) *exec.Cmd{
		"go": func(t *testing.T, addr string) *exec.Cmd {
			bin := filepath.Join(t.TempDir(), "receiver-go")
			if out, err := exec.Command("go", "build", "-o", bin, "./examples/receiver-go").CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			return exec.Command(bin, "-addr", addr)
		},
		"node": func(t *testing.T, addr string) *exec.Cmd {
			if _, err := exec.LookPath("node"); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("node is missing under CI=true: %v", err)
				}
				t.Skipf("SKIPPED: needs node on PATH for the Node receiver: %v", err)
			}
			return exec.Command("node", "examples/receiver-node/receiver.js", addr)
		},
	}
	for name, start := range receivers {
		t.Run(name, func(t *testing.T) {
			addr := freeAddr(t)
			cmd := start(t, addr)
			cmd.Env = append(os.Environ(), "WEBHOOK_SECRET="+secret)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			waitListening(t, addr)
			for _, c := range cases {
				code := post(t, addr, c.header, c.body)
				if ok := code == http.StatusNoContent; ok != c.ok {
					t.Errorf("%s: answered %d, want ok=%v", c.name, code, c.ok)
				} else if !ok && code != http.StatusBadRequest {
					t.Errorf("%s: answered %d, want 400", c.name, code)
				}
			}
			time.Sleep(100 * time.Millisecond) // the last line reaches out
			log := out.String()
			// Every accepted case carried the same eventId: the first is
			// handled, the others are acknowledged as duplicates.
			if n := strings.Count(log, "verified svc.kyc.request.approved kev_01M881FT6JZWKB0PF9DS8K05BV kyc_x approved"); n != 1 {
				t.Errorf("handled the event %d times, want once:\n%s", n, log)
			}
			if n := strings.Count(log, "duplicate kev_01M881FT6JZWKB0PF9DS8K05BV"); n != 3 {
				t.Errorf("%d duplicates noted, want 3:\n%s", n, log)
			}
		})
	}
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
	}
	t.Fatalf("nothing listens on %s", addr)
}

func post(t *testing.T, addr, header string, body []byte) int {
	t.Helper()
	req, err := http.NewRequest("POST", fmt.Sprintf("http://%s/hooks", addr), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if header != "" {
		req.Header.Set("X-Svc-Signature", header)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
