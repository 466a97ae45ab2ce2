package replicate_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kycd/replicate"
	"kycd/store"
	"kycd/store/storetest"
)

// syncedBuffer is a log destination that tests read while loggers write.
type syncedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncedBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncedBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testSyncInterval is the replicas' sync interval in these tests; the
// checkpointer looks at the WAL once an interval.
const testSyncInterval = 100 * time.Millisecond

// checkpointLog is a checkpoint's debug line, with the WAL it found.
var checkpointLog = regexp.MustCompile(`msg="replication: checkpoint" wal_bytes=(\d+)`)

// open starts replication and then the store, as serve does.
func open(t *testing.T, db string, urls ...string) (*store.Store, *replicate.Replicator, *syncedBuffer) {
	t.Helper()
	logs := &syncedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rep, err := replicate.Start(t.Context(), replicate.Config{DB: db, URLs: urls, SyncInterval: testSyncInterval, Logger: log})
	if err != nil {
		t.Fatalf("start replication: %v", err)
	}
	st, err := store.Open(t.Context(), db, store.Options{ExternalCheckpoints: true, Logger: log, MasterKey: storetest.MasterKey})
	if err != nil {
		rep.Close()
		t.Fatalf("open store: %v", err)
	}
	rep.PauseWith(st.Pause)
	return st, rep, logs
}

func createOrgs(t *testing.T, st *store.Store, prefix string, n int) []string {
	t.Helper()
	ids := make([]string, 0, n)
	for i := range n {
		err := st.InTx(t.Context(), func(tx *store.Tx) error {
			o, err := tx.CreateOrganization(fmt.Sprintf("%s %d", prefix, i), "")
			if err == nil {
				ids = append(ids, o.ID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

func orgIDs(t *testing.T, db string) map[string]bool {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(`SELECT id FROM organizations`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids[id] = true
	}
	return ids
}

// TestReplicateUnderLoadKeepsWALBounded: with Litestream owning the
// checkpoints, a steady write load keeps the WAL small, two replicas get
// every acknowledged write, and both restore to an identical, sound file.
func TestReplicateUnderLoadKeepsWALBounded(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kyc.db")
	urlA, urlB := "file://"+filepath.Join(dir, "replica-a"), "file://"+filepath.Join(dir, "replica-b")
	st, rep, logs := open(t, db, urlA, urlB)

	// 8 writers, 16,000 rows of 1 KiB: about 190 MiB of WAL frames here
	// (the checkpoints' wal_bytes summed), all of which the WAL would hold
	// without checkpoints.
	const rows = 16000
	name := strings.Repeat("x", 1024)
	var written atomic.Int64
	var maxWAL, maxLatency atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range rows / 8 {
				t0 := time.Now()
				err := st.InTx(context.Background(), func(tx *store.Tx) error {
					_, err := tx.CreateOrganization(name, "")
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
				if d := int64(time.Since(t0)); d > maxLatency.Load() {
					maxLatency.Store(d)
				}
				written.Add(1)
			}
		})
	}
	done := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for {
			if fi, err := os.Stat(db + "-wal"); err == nil && fi.Size() > maxWAL.Load() {
				maxWAL.Store(fi.Size())
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	wg.Wait()
	took := time.Since(start)
	close(done)
	sampler.Wait()
	acked := orgIDs(t, db)
	// The WAL written: each checkpoint logs the WAL it found and restarts
	// it, so their wal_bytes add up to it (less what came after the last).
	var walWritten int64
	for _, m := range checkpointLog.FindAllStringSubmatch(logs.String(), -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		walWritten += n
	}
	// The checkpointer looks once a sync interval and checkpoints from
	// 4 MiB, so the WAL stays within that and about one interval of
	// writes (docs/operations.md, "Checkpoints"). A fixed 16 MiB was that
	// bound for one speed: at about 95 MiB/s of WAL here, the largest WAL
	// was 10-15.3 MiB in 32 runs, and a machine writing a third faster
	// would pass 16 MiB with the checkpointer on time. The bound is two
	// intervals of writes at the rate measured, and at most a quarter of
	// the WAL the file would hold without checkpoints.
	rate := float64(walWritten) / took.Seconds()
	bound := min(replicate.CheckpointBytes+int64(2*rate*testSyncInterval.Seconds()), walWritten/4)
	t.Logf("%d writes (%.1f MiB of rows) in %v: %.1f MiB of WAL (%.0f MiB/s); largest WAL %.1f MiB (bound %.1f MiB); %d checkpoints; slowest write %v",
		written.Load(), float64(written.Load())*1024/(1<<20), took.Round(time.Millisecond), float64(walWritten)/(1<<20), rate/(1<<20),
		float64(maxWAL.Load())/(1<<20), float64(bound)/(1<<20), strings.Count(logs.String(), "replication: checkpoint"), time.Duration(maxLatency.Load()))
	if maxWAL.Load() > bound {
		t.Errorf("WAL grew to %d bytes under replication; want it within %d (4 MiB and two sync intervals of writes, and a quarter of the %d written)",
			maxWAL.Load(), bound, walWritten)
	}

	// Once a sync that started after the last write completes, both
	// replicas hold everything.
	last := time.Now()
	deadline := time.Now().Add(10 * time.Second)
	for {
		done := 0
		for _, s := range rep.Status() {
			if s.LastSync.After(last) {
				done++
			}
		}
		if done == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replicas did not catch up: %+v\n%s", rep.Status(), logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, s := range rep.Status() {
		if s.LastError != "" || s.TXID == 0 || s.Lag > 5*time.Second {
			t.Errorf("status %+v", s)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rep.Close(); err != nil {
		t.Fatal(err)
	}

	for _, u := range []string{urlA, urlB} {
		out := filepath.Join(t.TempDir(), "restored.db")
		res, err := replicate.Restore(t.Context(), u, replicate.Credentials{}, out, replicate.RestoreOptions{})
		if err != nil {
			t.Fatalf("restore %s: %v", u, err)
		}
		got := orgIDs(t, out)
		if len(got) != len(acked) {
			t.Errorf("restore of %s: %d organizations, want %d", u, len(got), len(acked))
		}
		for id := range acked {
			if !got[id] {
				t.Fatalf("restore of %s lacks %s", u, id)
			}
		}
		if res.TXID == 0 || res.Bytes == 0 {
			t.Errorf("restored %+v", res)
		}
	}
}

// TestReplicaThatCannotBeWritten: a replica that fails logs the error
// with its URL (never a password) and shows it in Status, while writes and
// the other replica go on.
func TestReplicaThatCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kyc.db")
	blocker := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	good := "file://" + filepath.Join(dir, "good")
	bad := "file://" + filepath.Join(blocker, "replica")
	st, rep, logs := open(t, db, bad, good)
	createOrgs(t, st, "still writing", 20)

	deadline := time.Now().Add(10 * time.Second)
	for {
		s := rep.Status()
		if s[0].LastError != "" && !s[1].LastSync.IsZero() && strings.Contains(logs.String(), "replication failed") {
			if !s[0].LastSync.IsZero() || s[1].LastError != "" {
				t.Fatalf("status %+v", s)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status %+v\n%s", s, logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "replica="+bad) {
		t.Errorf("the error log does not name the replica:\n%s", logs)
	}
	createOrgs(t, st, "after the failure", 5)
	st.Close()
	rep.Close()
}

// TestStartRefusesEmptyDatabaseOverBackup: a lost database file is
// restored, not replaced by an empty one that would overwrite the backup.
func TestStartRefusesEmptyDatabaseOverBackup(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kyc.db")
	u := "file://" + filepath.Join(dir, "replica")
	st, rep, _ := open(t, db, u)
	ids := createOrgs(t, st, "before", 3)
	st.Close()
	if err := rep.Close(); err != nil {
		t.Fatal(err)
	}

	lost := filepath.Join(t.TempDir(), "kyc.db")
	_, err := replicate.Start(t.Context(), replicate.Config{DB: lost, URLs: []string{u}})
	if err == nil || !strings.Contains(err.Error(), "restore it first") {
		t.Fatalf("start on a missing file: %v", err)
	}

	// Restored, it replicates on: the replica resumes after the restore.
	if _, err := replicate.Restore(t.Context(), u, replicate.Credentials{}, lost, replicate.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	copyFile(t, db+".keys", lost+".keys") // the key store is restored from its own copy, never from the replica
	st, rep, logs := open(t, lost, u)
	more := createOrgs(t, st, "after", 3)
	st.Close()
	if err := rep.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "resuming the replica's transaction numbering") {
		t.Errorf("no resume in the log:\n%s", logs)
	}
	again := filepath.Join(t.TempDir(), "again.db")
	if _, err := replicate.Restore(t.Context(), u, replicate.Credentials{}, again, replicate.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	got := orgIDs(t, again)
	for _, id := range append(ids, more...) {
		if !got[id] {
			t.Errorf("second restore lacks %s", id)
		}
	}
}

func TestRestoreRefusesExistingDestination(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kyc.db")
	u := "file://" + filepath.Join(dir, "replica")
	st, rep, _ := open(t, db, u)
	createOrgs(t, st, "org", 2)
	st.Close()
	rep.Close()

	dst := filepath.Join(dir, "dst.db")
	os.WriteFile(dst, []byte("precious"), 0o600)
	if _, err := replicate.Restore(t.Context(), u, replicate.Credentials{}, dst, replicate.RestoreOptions{}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("restore over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "precious" {
		t.Fatal("the existing file was touched")
	}
	os.WriteFile(dst+"-wal", []byte("stale"), 0o600)
	if _, err := replicate.Restore(t.Context(), u, replicate.Credentials{}, dst, replicate.RestoreOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dst + "-wal"); !os.IsNotExist(err) {
		t.Error("the old WAL was left beside the restored file")
	}
	if n := len(orgIDs(t, dst)); n != 2 {
		t.Errorf("%d organizations, want 2", n)
	}
	if _, err := replicate.Restore(t.Context(), "file://"+filepath.Join(dir, "empty"), replicate.Credentials{}, filepath.Join(dir, "x.db"), replicate.RestoreOptions{}); err == nil || !strings.Contains(err.Error(), "no backup") {
		t.Errorf("restore from an empty replica: %v", err)
	}
}

// TestBackupWhileWriting: a backup taken during writes is one consistent
// state, and refuses to overwrite.
func TestBackupWhileWriting(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kyc.db")
	st, err := store.Open(t.Context(), db, store.Options{MasterKey: storetest.MasterKey})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	createOrgs(t, st, "seed", 200)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			st.InTx(context.Background(), func(tx *store.Tx) error {
				_, err := tx.CreateOrganization(fmt.Sprintf("during %d", i), "")
				return err
			})
		}
	})
	out := filepath.Join(dir, "backup.db")
	n, err := replicate.Backup(t.Context(), db, out)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || len(orgIDs(t, out)) < 200 {
		t.Fatalf("backup of %d bytes with %d organizations", n, len(orgIDs(t, out)))
	}
	if err := replicate.IntegrityCheck(t.Context(), out); err != nil {
		t.Fatal(err)
	}
	if _, err := replicate.Backup(t.Context(), db, out); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second backup to the same file: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 5 { // kyc.db, -wal, -shm, .keys, backup.db
		t.Errorf("left-overs: %v", ents)
	}
}

func TestRedact(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"sftp://backup:hunter2@host:2222/kycd", "sftp://backup@host:2222/kycd"},
		{"s3://bucket/prefix?endpoint=http://minio:9000&sseCustomerKey=c2VjcmV0", "s3://bucket/prefix"},
		{"file:///var/backups/kycd", "file:///var/backups/kycd"},
	} {
		if got := replicate.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q)=%q, want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct{ url, want string }{
		{"ftp://host/x", "unsupported scheme"},
		{"file://relative/path", "file:///absolute/path"},
		{"sftp://host/x", "sftp://user@host"},
		{"sftp://u@host/x", "--sftp-password"},
		{"sftp://u:hunter2@ho st/x", "invalid character"},
		{"s3:///prefix", "s3://bucket/prefix"},
	} {
		_, err := replicate.Start(t.Context(), replicate.Config{DB: filepath.Join(t.TempDir(), "x.db"), URLs: []string{tt.url}})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v, want an error with %q and no password", tt.url, err, tt.want)
		}
	}
}

// TestIdleCheckpointsUploadNoSnapshots: once writes stop, the time-based
// checkpoint runs once; it must not repeat on the WAL that holds only
// Litestream's own write, where every round would upload a full snapshot.
func TestIdleCheckpointsUploadNoSnapshots(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kyc.db")
	st, rep, logs := open(t, db, "file://"+filepath.Join(dir, "replica"))
	replicate.SetCheckpointEvery(rep, 200*time.Millisecond)
	createOrgs(t, st, "busy", 300)
	time.Sleep(500 * time.Millisecond)
	l0 := filepath.Join(dir, "replica", "ltx", "0")
	before, _ := os.ReadDir(l0)
	// On a loaded machine the writes themselves can span several rounds, so
	// only the checkpoints taken while idle are counted.
	busy := strings.Count(logs.String(), "replication: checkpoint")
	time.Sleep(2 * time.Second) // ten rounds of the time-based checkpoint
	after, _ := os.ReadDir(l0)
	st.Close()
	rep.Close()
	total := strings.Count(logs.String(), "replication: checkpoint")
	if total == 0 || total-busy > 1 {
		t.Errorf("%d checkpoints in all, %d while idle, want at least one and at most one while idle", total, total-busy)
	}
	if len(after)-len(before) > 3 {
		t.Errorf("%d files uploaded while idle:\n%s", len(after)-len(before), logs)
	}
}
