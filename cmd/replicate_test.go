package cmd_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"kycd/kyc"
)

// newKey makes an organization and an unlimited sandbox key in db.
func newKey(t *testing.T, db string) string {
	t.Helper()
	code, out, errOut := run(t, "orgs", "create", "--db", db, "--name", "Backups Ltd")
	if code != 0 {
		t.Fatalf("orgs create: %s", errOut)
	}
	code, out, errOut = run(t, "keys", "create", "--db", db, "--org", strings.TrimSpace(out), "--env", "sandbox", "--rpm", "0")
	if code != 0 {
		t.Fatalf("keys create: %s", errOut)
	}
	return strings.TrimSpace(out)
}

// writers creates applicants over HTTP from 8 connections until stop is
// closed, and returns the ids whose 201 arrived.
type writers struct {
	mu    sync.Mutex
	acked []string
	stop  chan struct{}
	wg    sync.WaitGroup
}

func startWriters(addr, key string) *writers {
	w := &writers{stop: make(chan struct{})}
	for n := range 8 {
		w.wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-w.stop:
					return
				default:
				}
				body := fmt.Sprintf(`{"firstName":"Writer%d","lastName":"Number%d"}`, n, i)
				req, _ := http.NewRequest("POST", "http://"+addr+"/v1/applicants", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					return // the server is gone
				}
				var a struct{ ID string }
				json.NewDecoder(res.Body).Decode(&a)
				res.Body.Close()
				if res.StatusCode == 201 {
					w.mu.Lock()
					w.acked = append(w.acked, a.ID)
					w.mu.Unlock()
				}
			}
		})
	}
	return w
}

// finish stops the writers and returns what was acknowledged.
func (w *writers) finish() []string {
	close(w.stop)
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.acked...)
}

func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func idSet(t *testing.T, db *sql.DB, query string, args ...any) map[string]bool {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[id] = true
	}
	return ids
}

func integrity(t *testing.T, db *sql.DB) string {
	t.Helper()
	var s string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// copyKeys puts the original's key files beside a restored copy: they are
// not in the replica or the backup, on purpose.
func copyKeys(t *testing.T, from, to string) {
	t.Helper()
	// The per-applicant key store too: it is backed up with the keys,
	// never inside the database's backups (docs/personal-data.md).
	for _, suffix := range []string{".secret-key", ".master-key", ".keys"} {
		b, err := os.ReadFile(from + suffix)
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// checkServes starts serve on db and reads applicants with key.
func checkServes(t *testing.T, db, key string, ids []string) {
	t.Helper()
	p := startServe(t, db)
	for _, i := range []int{0, len(ids) / 2, len(ids) - 1} {
		req, _ := http.NewRequest("GET", "http://"+p.addr+"/v1/applicants/"+ids[i], nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("GET applicant %s from %s: %d", ids[i], db, res.StatusCode)
		}
	}
	if status, body := post(t, p.addr, key, "/v1/applicants", `{"firstName":"After","lastName":"Restore"}`); status != 201 {
		t.Errorf("POST on %s: %d %v", db, status, body)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(t); err != nil {
		t.Errorf("serve %s: %v\n%s", db, err, p.log())
	}
}

// TestReplicateKill9ThenRestore: kycd serve replicates to a file replica
// under write load and is killed with SIGKILL mid-load. Restored from the
// replica, the file holds every applicant acknowledged more than two sync
// intervals before the kill, passes integrity_check, keeps its jobs, and
// serves with the same API key.
func TestReplicateKill9ThenRestore(t *testing.T) {
	dir := t.TempDir()
	db := initDB(t, filepath.Join(dir, "kyc.db"))
	replica := "file://" + filepath.Join(dir, "replica")
	key := newKey(t, db)
	const interval = 250 * time.Millisecond
	p := startServe(t, db, "--replicate", replica, "--replicate-sync-interval", interval.String())

	w := startWriters(p.addr, key)
	time.Sleep(2 * time.Second)
	acked := w.finish()
	if len(acked) < 100 {
		t.Fatalf("only %d writes acknowledged", len(acked))
	}
	// Every write so far is replicated within two sync intervals.
	time.Sleep(2*interval + 250*time.Millisecond)
	synced := time.Now()
	// /readyz shows the replica in sync.
	res, err := http.Get("http://" + p.addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `"enabled":true`) || !strings.Contains(string(body), `"lastSyncAt":"`) {
		t.Errorf("readyz does not show the replica: %s", body)
	}

	// Writes in flight when the process dies may or may not be on the
	// replica; they must not break it.
	w = startWriters(p.addr, key)
	time.Sleep(300 * time.Millisecond)
	p.cmd.Process.Kill()
	p.wait(t)
	late := w.finish()
	if strings.Contains(p.log(), "replication failed") {
		t.Errorf("replication errors before the kill:\n%s", p.log())
	}

	restored := filepath.Join(t.TempDir(), "restored.db")
	start := time.Now()
	code, out, errOut := run(t, "restore", "--from", replica, "--db", restored)
	if code != 0 || !strings.Contains(out, "integrity_check ok") {
		t.Fatalf("restore: %d %q %q", code, out, errOut)
	}
	t.Logf("%d + %d writes; restore took %v: %s", len(acked), len(late), time.Since(start), out)
	if fi, err := os.Stat(restored); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != 0o600 {
		t.Errorf("restored file mode %v, want 0600", fi.Mode().Perm())
	}

	orig, got := openDB(t, db), openDB(t, restored)
	if s := integrity(t, got); s != "ok" {
		t.Fatalf("integrity_check: %s", s)
	}
	have := idSet(t, got, `SELECT id FROM applicants`)
	missing := 0
	for _, id := range acked {
		if !have[id] {
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d applicants acknowledged before the last sync are not in the restored file", missing, len(acked))
	}
	lateIn := 0
	for _, id := range late {
		if have[id] {
			lateIn++
		}
	}
	t.Logf("of %d writes in the last 300 ms before the kill, %d reached the replica", len(late), lateIn)

	// The jobs of the acknowledged writes are there too: the job table is
	// part of the same transactions.
	before := kyc.FormatTime(synced.Add(-2 * interval))
	wantJobs := idSet(t, orig, `SELECT id || ':' || kind FROM jobs WHERE created_at < ?`, before)
	gotJobs := idSet(t, got, `SELECT id || ':' || kind FROM jobs`)
	if len(wantJobs) == 0 {
		t.Fatal("no jobs in the original")
	}
	for j := range wantJobs {
		if !gotJobs[j] {
			t.Fatalf("job %s is not in the restored file", j)
		}
	}

	copyKeys(t, db, restored)
	checkServes(t, restored, key, acked)
}

// TestBackupWhileServing: kycd backup copies the database while serve
// writes; the copy is consistent, holds everything acknowledged before it
// started, and serves.
func TestBackupWhileServing(t *testing.T) {
	dir := t.TempDir()
	db := initDB(t, filepath.Join(dir, "kyc.db"))
	key := newKey(t, db)
	p := startServe(t, db)
	w := startWriters(p.addr, key)
	time.Sleep(time.Second)
	w.mu.Lock()
	before := append([]string(nil), w.acked...)
	w.mu.Unlock()

	out := filepath.Join(dir, "backup.db")
	code, stdout, errOut := run(t, "backup", "--db", db, "--out", out)
	during := w.finish()
	if code != 0 || !strings.Contains(stdout, "integrity_check ok") {
		t.Fatalf("backup: %d %q %q", code, stdout, errOut)
	}
	t.Logf("%s(%d writes before, %d in all)", stdout, len(before), len(during))
	got := openDB(t, out)
	if s := integrity(t, got); s != "ok" {
		t.Fatalf("integrity_check: %s", s)
	}
	have := idSet(t, got, `SELECT id FROM applicants`)
	for _, id := range before {
		if !have[id] {
			t.Fatalf("applicant %s acknowledged before the backup is not in it", id)
		}
	}
	if code, _, errOut := run(t, "backup", "--db", db, "--out", out); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Errorf("backup over an existing file: %d %q", code, errOut)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(t)

	copyKeys(t, db, out)
	checkServes(t, out, key, before)
}

// TestReplicateSFTP replicates over SFTP (an in-process SSH server with
// password login and a pinned host key) and to a replica that cannot be
// written, configured through the environment. The broken replica is
// logged with its URL and no secret; the API and the SFTP replica go on.
func TestReplicateSFTP(t *testing.T) {
	dir := t.TempDir()
	addr, hostKey := startSFTPServer(t, "kycd", "s3cret-pw", filepath.Join(dir, "sftp-root"))
	os.Mkdir(filepath.Join(dir, "sftp-root"), 0o700)
	blocker := filepath.Join(dir, "blocker")
	os.WriteFile(blocker, nil, 0o600)
	sftpURL := "sftp://kycd@" + addr + "/replica"
	badURL := "file://" + blocker + "/replica"

	db := initDB(t, filepath.Join(dir, "kyc.db"))
	key := newKey(t, db)
	t.Setenv("KYCD_REPLICATE", sftpURL+","+badURL)
	t.Setenv("KYCD_SFTP_PASSWORD", "s3cret-pw")
	t.Setenv("KYCD_SFTP_HOST_KEY", hostKey)
	p := startServe(t, db, "--replicate-sync-interval", "200ms", "--log-level", "debug")
	var ids []string
	for i := range 20 {
		status, a := post(t, p.addr, key, "/v1/applicants", fmt.Sprintf(`{"firstName":"Sftp","lastName":"N%d"}`, i))
		if status != 201 {
			t.Fatalf("create: %d %v", status, a)
		}
		ids = append(ids, a["id"].(string))
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.log(), `"msg":"replication failed"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no error logged for the broken replica:\n%s", p.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A clean stop uploads the last writes before it exits.
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(t); err != nil {
		t.Fatalf("serve: %v\n%s", err, p.log())
	}
	logs := p.log()
	if strings.Contains(logs, "host key not verified") {
		t.Error("the pinned SFTP host key was not used")
	}
	if strings.Contains(logs, "s3cret-pw") {
		t.Error("the SFTP password is in the log")
	}
	if !regexp.MustCompile(`"msg":"replication failed","replica":"` + regexp.QuoteMeta(badURL) + `"`).MatchString(logs) {
		t.Errorf("the error does not name the replica:\n%s", logs)
	}
	if strings.Count(logs, `"msg":"replication failed"`) > 3 {
		t.Errorf("a persistent error is logged on every attempt:\n%s", logs)
	}

	restored := filepath.Join(dir, "restored.db")
	code, out, errOut := run(t, "restore", "--from", sftpURL, "--db", restored)
	if code != 0 {
		t.Fatalf("restore over SFTP: %d %q %q", code, out, errOut)
	}
	have := idSet(t, openDB(t, restored), `SELECT id FROM applicants`)
	for _, id := range ids {
		if !have[id] {
			t.Fatalf("applicant %s is not in the SFTP replica", id)
		}
	}
}

// TestReplicateS3 replicates to an S3-compatible server (gofakes3, in
// process, path-style like MinIO) with credentials from flags and the
// environment, and restores from it.
func TestReplicateS3(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("kycd-backups"); err != nil {
		t.Fatal(err)
	}
	s3srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer s3srv.Close()
	// Litestream's S3 client cannot load the AWS config with a CA bundle
	// (docs/operations.md says so); this machine sets one.
	t.Setenv("AWS_CA_BUNDLE", "")
	t.Setenv("KYCD_S3_SECRET_ACCESS_KEY", "fake-secret-key")
	s3Flags := []string{"--s3-endpoint", s3srv.URL, "--s3-force-path-style", "--s3-access-key-id", "AKIAFAKE"}

	dir := t.TempDir()
	db := initDB(t, filepath.Join(dir, "kyc.db"))
	key := newKey(t, db)
	url := "s3://kycd-backups/prod/kyc"
	p := startServe(t, db, append([]string{"--replicate", url, "--replicate-sync-interval", "200ms"}, s3Flags...)...)
	var ids []string
	for i := range 20 {
		status, a := post(t, p.addr, key, "/v1/applicants", fmt.Sprintf(`{"firstName":"Bucket","lastName":"N%d"}`, i))
		if status != 201 {
			t.Fatalf("create: %d %v", status, a)
		}
		ids = append(ids, a["id"].(string))
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(t); err != nil {
		t.Fatalf("serve: %v\n%s", err, p.log())
	}
	if strings.Contains(p.log(), "replication failed") || strings.Contains(p.log(), "fake-secret-key") {
		t.Fatalf("replication to S3:\n%s", p.log())
	}

	restored := filepath.Join(dir, "restored.db")
	code, out, errOut := run(t, append([]string{"restore", "--from", url, "--db", restored}, s3Flags...)...)
	if code != 0 {
		t.Fatalf("restore from S3: %d %q %q", code, out, errOut)
	}
	have := idSet(t, openDB(t, restored), `SELECT id FROM applicants`)
	for _, id := range ids {
		if !have[id] {
			t.Fatalf("applicant %s is not in the S3 replica", id)
		}
	}
}

// startSFTPServer serves SFTP on 127.0.0.1 with one user, rooted at root.
// It returns the address and the host key in authorized_keys form.
func startSFTPServer(t *testing.T, user, password, root string) (addr, hostKey string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PasswordCallback: func(c ssh.ConnMetadata, pass []byte) (*ssh.Permissions, error) {
		if c.User() == user && string(pass) == password {
			return nil, nil
		}
		return nil, errors.New("access denied")
	}}
	cfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go serveSFTP(nc, cfg, root)
		}
	}()
	return ln.Addr().String(), strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
}

func serveSFTP(nc net.Conn, cfg *ssh.ServerConfig, root string) {
	defer nc.Close()
	_, chans, reqs, err := ssh.NewServerConn(nc, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nch := range chans {
		if nch.ChannelType() != "session" {
			nch.Reject(ssh.UnknownChannelType, "sessions only")
			continue
		}
		ch, chReqs, err := nch.Accept()
		if err != nil {
			continue
		}
		go func() {
			for req := range chReqs {
				ok := req.Type == "subsystem" && len(req.Payload) > 4 && string(req.Payload[4:]) == "sftp"
				req.Reply(ok, nil)
				if ok {
					go func() {
						defer ch.Close()
						if srv, err := sftp.NewServer(ch, sftp.WithServerWorkingDirectory(root)); err == nil {
							srv.Serve()
						}
					}()
				}
			}
		}()
	}
}
