package cmd_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kycd/internal/smtptest"
)

// secret is a value that must never be stored in clear, with a label
// that says what it is without showing it.
type secret struct {
	label string
	value []byte
}

// TestNoSecretAtRest takes the full tour — API keys, webhook endpoints
// and their secrets (created and rotated, from the API and the CLI), KYC
// requests and their portal links, the portal-link e-mails sent through
// the outbox, every POST with an Idempotency-Key and replayed — and then
// reads the raw database file and its WAL, and every text and blob column
// of every table, for each secret, token and key it saw. None may be
// there: docs/security.md says API keys and portal tokens are stored only as
// their SHA-256 and webhook secrets encrypted (issue #9: the idempotency
// cache and the e-mail outbox kept them in clear). The files are 0600.
func TestNoSecretAtRest(t *testing.T) {
	relay := smtptest.New(t)
	db := filepath.Join(t.TempDir(), "kyc.db")
	p := startServe(t, db, "--smtp-host", "127.0.0.1", "--smtp-port", strconv.Itoa(relay.Port()), "--smtp-tls", "none", "--smtp-from", "kycd@example.com",
		"--allow-private-webhooks")
	var secrets []secret
	add := func(label, v string) {
		t.Helper()
		if v == "" {
			t.Fatalf("no %s", label)
		}
		secrets = append(secrets, secret{label, []byte(v)})
	}
	apiKey := func(label, token string) {
		add(label, token)
		add(label+" secret part", token[strings.IndexByte(token, '.')+1:])
	}
	boot := bootstrapKey.FindString(p.log())
	apiKey("bootstrap API key", boot)
	org := regexp.MustCompile(`org_[0-9A-Z]{26}`).FindString(p.log())

	// The operator's CLI, while serve runs.
	code, live, errOut := run(t, "keys", "create", "--db", db, "--org", org, "--env", "live", "--tier", "pro")
	if code != 0 {
		t.Fatalf("keys create: %s", errOut)
	}
	apiKey("live API key", strings.TrimSpace(live))
	code, out, errOut := run(t, "webhooks", "add", "--db", db, "--org", org, "--env", "sandbox", "--url", "http://127.0.0.1:9/cli", "--allow-private-webhooks")
	if code != 0 {
		t.Fatalf("webhooks add: %s", errOut)
	}
	add("CLI webhook secret", strings.Fields(out)[1])
	code, out, errOut = run(t, "orgs", "callback-secret", "rotate", "--db", db, "--org", org, "--env", "live")
	if code != 0 {
		t.Fatalf("callback-secret rotate: %s", errOut)
	}
	add("CLI callback secret", strings.TrimSpace(out))

	// The API, each POST with an Idempotency-Key, each replayed once.
	n := 0
	idem := func(path, body string) map[string]any {
		t.Helper()
		n++
		key := fmt.Sprint("tour-", n)
		var first []byte
		for i := range 2 {
			req, _ := http.NewRequest("POST", "http://"+p.addr+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+boot)
			req.Header.Set("Idempotency-Key", key)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode/100 != 2 {
				t.Fatalf("POST %s: %d %s", path, res.StatusCode, b)
			}
			if i == 0 {
				first = b
			} else if res.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(b, first) {
				t.Fatalf("replay of POST %s: %q %s, want the first answer %s", path, res.Header.Get("Idempotent-Replayed"), b, first)
			}
		}
		var m map[string]any
		if err := json.Unmarshal(first, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	ep := idem("/v1/webhook-endpoints", `{"url":"http://127.0.0.1:9/api","eventTypes":["svc.webhook.test"]}`)
	add("API webhook secret", fmt.Sprint(ep["secret"]))
	rot := idem("/v1/webhook-endpoints/"+fmt.Sprint(ep["id"])+"/rotate-secret", `{"overlapHours":24}`)
	add("rotated webhook secret", fmt.Sprint(rot["secret"]))
	token := func(r map[string]any) string {
		u := fmt.Sprint(r["portalUrl"])
		return u[strings.LastIndexByte(u, '/')+1:]
	}
	req := idem("/v1/kyc-requests", `{"applicant":{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"},"callbackUrl":"http://127.0.0.1:9/cb"}`)
	add("callback secret (first KYC request with a callbackUrl)", fmt.Sprint(req["callbackSecret"]))
	add("rotated callback secret", fmt.Sprint(idem("/v1/callback-secret/rotate", `{}`)["secret"]))
	tokens := []string{token(req)}
	resent := idem("/v1/kyc-requests/"+fmt.Sprint(req["id"])+"/resend-link", `{}`)
	tokens = append(tokens, token(resent))
	for i, tok := range tokens {
		add(fmt.Sprint("portal token ", i+1), tok)
	}
	idem("/v1/applicants", `{"firstName":"Grace","lastName":"Hopper"}`)
	idem("/v1/aml-checks", `{"firstName":"Grace","lastName":"Hopper"}`)

	// Both portal links go out through the outbox.
	deadline := time.Now().Add(20 * time.Second)
	for {
		all := strings.Join(relay.Messages(), "\n")
		if strings.Contains(all, tokens[0]) && strings.Contains(all, tokens[1]) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the portal-link e-mails did not reach the relay (%d messages):\n%s", len(relay.Messages()), p.log())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // let the send be recorded

	// The back office: the set-password link, the password, sessions and
	// the second factor's secret.
	for label, v := range consoleSecrets(t, db, p.addr, org) {
		add(label, v)
	}

	// The keys themselves, as files and as bytes, and the download-URL key
	// derived from the secrets key.
	for _, f := range []string{db + ".master-key", db + ".secret-key"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		add(filepath.Base(f)+" (text)", strings.TrimSpace(string(b)))
		secrets = append(secrets, secret{filepath.Base(f) + " (bytes)", raw})
		if strings.HasSuffix(f, ".secret-key") {
			m := hmac.New(sha256.New, raw)
			m.Write([]byte("kycd download URL key v1"))
			secrets = append(secrets, secret{"download URL key", m.Sum(nil)})
		}
	}

	scanForSecrets(t, db, secrets) // while serving: the WAL holds the recent writes
	stop(t, p)
	scanForSecrets(t, db, secrets) // after the final checkpoint

	for _, f := range []string{db, db + ".master-key", db + ".secret-key"} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, %v; want no access for group or others", filepath.Base(f), fi.Mode().Perm(), err)
		}
	}
}

// scanForSecrets fails the test for every secret found in the database's
// files (raw bytes: the file, the WAL, the shared-memory index) or in any
// text or blob value of any table (which also finds a value split across
// pages). The files are also checked for their mode.
func scanForSecrets(t *testing.T, db string, secrets []secret) {
	t.Helper()
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		fi, err := os.Stat(f)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is mode %v: readable by others", filepath.Base(f), fi.Mode().Perm())
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if bytes.Contains(b, s.value) {
				t.Errorf("%s holds the %s in clear", filepath.Base(f), s.label)
			}
		}
	}
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tables, err := conn.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		tables.Scan(&n)
		names = append(names, n)
	}
	tables.Close()
	values := 0
	for _, table := range names {
		rows, err := conn.Query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				var b []byte
				switch v := v.(type) {
				case string:
					b = []byte(v)
				case []byte:
					b = v
				default:
					continue
				}
				values++
				for _, s := range secrets {
					if bytes.Contains(b, s.value) {
						t.Errorf("%s.%s holds the %s in clear", table, cols[i], s.label)
					}
				}
			}
		}
		rows.Close()
	}
	t.Logf("scanned %d text and blob values in %d tables for %d secrets", values, len(names), len(secrets))
}

// TestWarnsAboutReadableKeyFiles: a key file other users can read is
// named at start, with the command that fixes it.
func TestWarnsAboutReadableKeyFiles(t *testing.T) {
	db := newDB(t)
	if err := os.Chmod(db+".master-key", 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "orgs", "create", "--db", db, "--name", "Acme")
	if code != 0 || !strings.Contains(errOut, "warning: the master key file "+db+".master-key is mode 0644") ||
		!strings.Contains(errOut, "chmod 600 "+db+".master-key") {
		t.Fatalf("orgs create: %d %q %q", code, out, errOut)
	}
	org := strings.TrimSpace(out)
	if err := os.WriteFile(db+".secret-key", []byte(base64.StdEncoding.EncodeToString(make([]byte, 32))+"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(db+".master-key", 0o600)
	code, _, errOut = run(t, "webhooks", "add", "--db", db, "--org", org, "--env", "sandbox", "--url", "http://93.184.216.34/h")
	if code != 0 || !strings.Contains(errOut, "the secrets key file "+db+".secret-key is mode 0640") || strings.Contains(errOut, "master key file") {
		t.Fatalf("webhooks add: %d %q", code, errOut)
	}
}
