package replicate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/benbjohnson/litestream/file"
	"github.com/superfly/ltx"
)

// errorLogEvery rate-limits the log line of an error that persists.
const errorLogEvery = 30 * time.Second

// maxBackoff bounds the wait between two attempts at a failing replica.
const maxBackoff = 30 * time.Second

// levels are Litestream's default compaction levels: L0 holds one file per
// sync, L1 merges them every 30 s, L2 every 5 min, L3 every hour. Point-in-
// time restores have the granularity of the files still kept.
var levels = []time.Duration{1: 30 * time.Second, 2: 5 * time.Minute, 3: time.Hour}

// replica is one destination: a Litestream replica (which uploads the
// local L0 files), a compactor for the higher levels, snapshots and
// retention, and the state Status reports.
type replica struct {
	url       string // redacted
	client    litestream.ReplicaClient
	lr        *litestream.Replica
	compactor *litestream.Compactor
	db        *litestream.DB
	r         *Replicator
	cfg       Config
	log       *slog.Logger
	kick      chan struct{} // walLoop read the WAL

	// work keeps seeding and maintenance (which both rewrite the replica's
	// files) apart.
	work sync.Mutex

	mu        sync.Mutex
	ready     bool // the replica continues the local history (checked by prepare)
	txid      ltx.TXID
	lastSync  time.Time
	lastErr   string
	lastErrAt time.Time
}

func newReplica(r *Replicator, client litestream.ReplicaClient, shown string, log *slog.Logger) *replica {
	db := r.db
	log = log.With("replica", shown)
	client.SetLogger(log.With("component", "litestream"))
	lr := litestream.NewReplicaWithClient(db, client)
	lr.MonitorEnabled = false // syncLoop drives it
	if fc, ok := client.(*file.ReplicaClient); ok {
		fc.Replica = lr // lets the file client copy the database's file ownership
	}
	c := litestream.NewCompactor(client, log.With("component", "litestream"))
	// Compact from the local L0 files when they are still there (no
	// download); the remote copy otherwise.
	c.LocalFileOpener = func(level int, minTXID, maxTXID ltx.TXID) (io.ReadCloser, error) {
		if level != 0 {
			return nil, os.ErrNotExist
		}
		return os.Open(db.LTXPath(0, minTXID, maxTXID))
	}
	return &replica{url: shown, client: client, lr: lr, compactor: c, db: db, r: r, cfg: r.cfg, log: log, kick: make(chan struct{}, 1)}
}

func (p *replica) status() ReplicaStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	return ReplicaStatus{URL: p.url, LastSync: p.lastSync, LastError: p.lastErr, LastErrorAt: p.lastErrAt, TXID: uint64(p.txid)}
}

func (p *replica) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastErr, p.lastErrAt = err.Error(), time.Now()
}

// syncLoop uploads what each read of the WAL found (walLoop kicks it),
// every sync interval; while the replica fails it backs off, up to 30 s.
// Errors are logged, never fatal.
func (p *replica) syncLoop(ctx context.Context) {
	var failing, logged, last, retryAt time.Time
	wait := p.cfg.SyncInterval
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.kick:
		}
		// walLoop reads the WAL every second when the sync interval is
		// longer; the tenth of slack absorbs the ticker's jitter.
		if time.Since(last) < p.cfg.SyncInterval*9/10 || time.Now().Before(retryAt) {
			continue
		}
		last = time.Now()
		err := p.sync(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			p.fail(err)
			if failing.IsZero() {
				failing = time.Now()
			}
			if time.Since(logged) >= errorLogEvery {
				p.log.Error("replication failed", "err", err, "failing_since", failing, "retry_in", wait.String())
				logged = time.Now()
			}
			retryAt = time.Now().Add(wait)
			wait = min(2*wait, maxBackoff)
			continue
		}
		if !failing.IsZero() {
			p.log.Info("replication recovered", "after", time.Since(failing).Round(time.Millisecond).String())
			failing, logged, retryAt = time.Time{}, time.Time{}, time.Time{}
		}
		wait = p.cfg.SyncInterval
	}
}

// sync uploads the LTX files of the last complete read of the WAL, and so
// every transaction committed before that read started.
func (p *replica) sync(ctx context.Context) error {
	read := p.r.walRead.Load()
	if read == 0 {
		return nil // Litestream has not read the file yet (walSync)
	}
	if err := p.upload(ctx); err != nil {
		if !isMissingLocalFile(err) {
			return err
		}
		// The replica needs local files already deleted (it was away
		// longer than they are kept): start it over from a snapshot.
		p.setReady(false)
		if err := p.upload(ctx); err != nil {
			return err
		}
	}
	p.mu.Lock()
	p.txid, p.lastSync, p.lastErr = p.lr.Pos().TXID, time.Unix(0, read), ""
	p.mu.Unlock()
	return nil
}

func (p *replica) upload(ctx context.Context) error {
	if !p.isReady() {
		if err := p.prepare(ctx); err != nil {
			return err
		}
	}
	return p.lr.Sync(ctx)
}

func (p *replica) isReady() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ready
}

func (p *replica) setReady(v bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ready = v
}

// errReplicaAhead: the replica's newest transaction is past the local one.
var errReplicaAhead = errors.New("the replica holds a newer history than this database (was the file replaced or restored?): restart kycd to resume from it, or use an empty location")

// prepare makes sure the replica continues the local history before
// anything is uploaded to it: its newest L0 file must be the same as the
// local one. Otherwise (new replica, local files already deleted, another
// database's history) it is seeded: its L0 files are removed and a
// snapshot of the current state is uploaded, so that a restore never
// combines two histories.
func (p *replica) prepare(ctx context.Context) error {
	if err := p.client.Init(ctx); err != nil {
		return err
	}
	remote, err := p.lr.MaxLTXFileInfo(ctx, 0)
	if err != nil {
		return fmt.Errorf("list replica: %w", err)
	}
	local, err := p.db.Pos()
	if err != nil {
		return fmt.Errorf("local position: %w", err)
	}
	if remote.MaxTXID > local.TXID {
		return errReplicaAhead
	}
	same, err := p.sameAsLocal(ctx, remote)
	if err != nil {
		return err
	}
	if same {
		p.lr.SetPos(ltx.Pos{TXID: remote.MaxTXID})
		p.setReady(true)
		return nil
	}
	if err := p.seed(ctx); err != nil {
		return fmt.Errorf("seed replica: %w", err)
	}
	p.setReady(true)
	return nil
}

// sameAsLocal tells whether the replica's newest L0 file is the local one
// (an empty replica matches when the local history starts at TXID 1).
func (p *replica) sameAsLocal(ctx context.Context, remote ltx.FileInfo) (bool, error) {
	if remote.MaxTXID == 0 {
		_, err := os.Stat(p.db.LTXPath(0, 1, 1))
		return err == nil, nil
	}
	f, err := os.Open(p.db.LTXPath(0, remote.MinTXID, remote.MaxTXID))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	defer f.Close()
	dec := ltx.NewDecoder(f)
	if err := dec.DecodeHeader(); err != nil {
		return false, nil
	}
	hdr, err := litestream.FetchLTXHeader(ctx, p.client, &remote)
	if err != nil {
		return false, fmt.Errorf("read replica file: %w", err)
	}
	return hdr == dec.Header(), nil
}

// seed restarts the replica from a snapshot of the current state.
func (p *replica) seed(ctx context.Context) error {
	p.work.Lock()
	defer p.work.Unlock()
	old, err := litestream.FindLTXFiles(ctx, p.client, 0, false, func(*ltx.FileInfo) (bool, error) { return true, nil })
	if err != nil {
		return err
	}
	if err := p.client.DeleteLTXFiles(ctx, old); err != nil {
		return err
	}
	pos, rd, err := p.db.SnapshotReader(ctx)
	if err != nil {
		return err
	}
	info, err := p.client.WriteLTXFile(ctx, litestream.SnapshotLevel, 1, pos.TXID, rd)
	rd.Close()
	if err != nil {
		return err
	}
	// The replica's position is its newest L0 file: upload the local one
	// the snapshot stands for, when it is still the newest.
	if minTXID, maxTXID, err := p.db.MaxLTX(); err == nil && maxTXID == pos.TXID {
		if f, err := os.Open(p.db.LTXPath(0, minTXID, maxTXID)); err == nil {
			_, err = p.client.WriteLTXFile(ctx, 0, minTXID, maxTXID, f)
			f.Close()
			if err != nil {
				return err
			}
		}
	}
	p.lr.SetPos(pos)
	p.log.Info("replica seeded with a snapshot", "txid", pos.TXID.String(), "size", info.Size)
	return nil
}

// isMissingLocalFile: the upload needed a local L0 file that is gone.
func isMissingLocalFile(err error) bool {
	var le *litestream.LTXError
	return errors.As(err, &le) && le.Op == "open" && errors.Is(le.Err, os.ErrNotExist)
}

// maintainLoop compacts, snapshots and enforces retention on schedule.
func (p *replica) maintainLoop(ctx context.Context) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	next := make([]time.Time, len(levels))
	var nextSnapshot time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !p.isReady() {
			continue
		}
		now := time.Now()
		for lvl := 1; lvl < len(levels); lvl++ {
			if now.Before(next[lvl]) {
				continue
			}
			if err := p.compact(ctx, lvl, now); err != nil && ctx.Err() == nil {
				p.log.Warn("replica compaction failed", "level", lvl, "err", err)
			}
			next[lvl] = now.Truncate(levels[lvl]).Add(levels[lvl])
		}
		if now.Before(nextSnapshot) {
			continue
		}
		if err := p.snapshot(ctx, now); err != nil && ctx.Err() == nil {
			p.log.Warn("replica snapshot failed", "err", err)
			nextSnapshot = now.Add(time.Minute)
			continue
		}
		nextSnapshot = now.Truncate(p.cfg.SnapshotInterval).Add(p.cfg.SnapshotInterval)
	}
}

// compact merges the files of level lvl-1 into one file of level lvl,
// once per period of the level (as Litestream's store does).
func (p *replica) compact(ctx context.Context, lvl int, now time.Time) error {
	p.work.Lock()
	defer p.work.Unlock()
	dst, err := p.compactor.MaxLTXFileInfo(ctx, lvl)
	if err != nil {
		return err
	}
	if dst.CreatedAt.After(now.Truncate(levels[lvl])) {
		return nil
	}
	src, err := p.compactor.MaxLTXFileInfo(ctx, lvl-1)
	if err != nil {
		return err
	}
	if src.MaxTXID <= dst.MaxTXID {
		return nil
	}
	if _, err := p.compactor.Compact(ctx, lvl); err != nil && !errors.Is(err, litestream.ErrNoCompaction) {
		return err
	}
	if lvl == 1 {
		return p.compactor.EnforceL0Retention(ctx, litestream.DefaultL0Retention)
	}
	return nil
}

// snapshot uploads a full snapshot once per snapshot interval (if there
// were changes), then drops the snapshots older than the retention and
// the compacted files that only they needed.
func (p *replica) snapshot(ctx context.Context, now time.Time) error {
	p.work.Lock()
	defer p.work.Unlock()
	last, err := p.compactor.MaxLTXFileInfo(ctx, litestream.SnapshotLevel)
	if err != nil {
		return err
	}
	pos, err := p.db.Pos()
	if err != nil {
		return err
	}
	if !last.CreatedAt.After(now.Truncate(p.cfg.SnapshotInterval)) && last.MaxTXID < pos.TXID {
		pos, rd, err := p.db.SnapshotReader(ctx)
		if err != nil {
			return err
		}
		info, err := p.client.WriteLTXFile(ctx, litestream.SnapshotLevel, 1, pos.TXID, rd)
		rd.Close()
		if err != nil {
			return err
		}
		p.log.Info("replica snapshot uploaded", "txid", pos.TXID.String(), "size", info.Size)
	}
	minTXID, err := p.compactor.EnforceSnapshotRetention(ctx, p.cfg.Retention)
	if err != nil {
		return err
	}
	for lvl := 1; lvl < len(levels); lvl++ {
		if err := p.compactor.EnforceRetentionByTXID(ctx, lvl, minTXID); err != nil {
			return err
		}
	}
	return nil
}

// fetchPosition copies a replica's newest L0 file into the local L0
// directory (emptied first), so that Litestream's next transaction follows
// the replica's. Its next sync finds that the file does not describe the
// WAL and writes a full snapshot. This is Litestream's own recovery when a
// database is behind its replica (DB.checkDatabaseBehindReplica).
func fetchPosition(ctx context.Context, db *litestream.DB, client litestream.ReplicaClient, info ltx.FileInfo) error {
	dir := db.LTXLevelDir(0)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rd, err := client.OpenLTXFile(ctx, 0, info.MinTXID, info.MaxTXID, 0, 0)
	if err != nil {
		return err
	}
	defer rd.Close()
	path := db.LTXPath(0, info.MinTXID, info.MaxTXID)
	f, err := os.CreateTemp(dir, ".fetch-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := io.Copy(f, rd); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Clean(path))
}
