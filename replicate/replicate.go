// Package replicate streams kycd's SQLite file to replicas (file://, s3://,
// sftp://) with embedded Litestream, restores a database from a replica,
// and writes single-file backups.
//
// Litestream turns committed WAL frames into LTX files (in a directory
// beside the database, ".<name>-litestream") and uploads them. It must see
// every frame before the frame is checkpointed into the database file and
// the WAL restarts, so while a Replicator runs it owns the checkpoints: the
// store is opened with store.Options.ExternalCheckpoints, and Litestream
// holds a read transaction that keeps anyone else from restarting the WAL.
// After each sync it checkpoints (PASSIVE, under a brief write lock) once
// the WAL passes 1,000 pages (4 MiB), and at least once a minute, so the
// WAL stays bounded.
//
// Litestream v0.5 replicates one database to one replica. To feed several,
// a Replicator keeps one Litestream DB (the WAL to local LTX files, and the
// checkpoints) and gives each replica its own uploader, compactor, snapshot
// schedule and retention, and its own status.
package replicate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
)

// Defaults of Config.
const (
	DefaultSyncInterval     = time.Second
	DefaultSnapshotInterval = 24 * time.Hour
	DefaultRetention        = 72 * time.Hour
)

// Config says what to replicate where.
type Config struct {
	DB          string   // the database file
	URLs        []string // one or more replica URLs
	Credentials Credentials
	// SyncInterval is how often new transactions are uploaded: the most
	// data (in time) a lost disk can cost (the RPO).
	SyncInterval time.Duration
	// SnapshotInterval is how often a full snapshot is uploaded; restores
	// start from the last snapshot before the target time.
	SnapshotInterval time.Duration
	// Retention is how long snapshots (and the changes after them) are
	// kept: the oldest point in time a restore can reach.
	Retention time.Duration
	Logger    *slog.Logger
}

// Replicator streams one database to its replicas.
type Replicator struct {
	db       *litestream.DB
	replicas []*replica
	cfg      Config
	log      *slog.Logger
	started  time.Time
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	once     sync.Once
	closeErr error

	pause           atomic.Pointer[PauseFunc] // PauseWith
	lastCheckpoint  time.Time                 // walLoop only
	checkpointTXID  ltx.TXID                  // walLoop only: the position after the last checkpoint
	checkpointEvery atomic.Int64              // ns: the constant checkpointEvery, which tests shorten
	checkpoints     atomic.Int64
	// walRead is when the last complete read of the WAL started (Unix ns).
	walRead atomic.Int64
}

// ReplicaStatus is one replica's state, for health checks and metrics.
type ReplicaStatus struct {
	URL string // without password or query string
	// LastSync is when the last successful sync started: every write
	// committed before it is on the replica. Zero until the first one.
	LastSync time.Time
	// Lag is the time since LastSync (since start before the first sync):
	// the writes of the last Lag could be lost with the disk. While the
	// replica keeps up it stays under about two sync intervals.
	Lag time.Duration
	// LastError is the error of the last attempt, empty when it succeeded.
	LastError   string
	LastErrorAt time.Time
	// TXID is the last Litestream transaction uploaded to the replica.
	TXID uint64
}

// closeTimeout bounds the final upload at Close.
const closeTimeout = 15 * time.Second

// probeTimeout bounds the look at each replica in Start; a replica that
// does not answer in time is retried in the background.
const probeTimeout = 15 * time.Second

// Start checks the replicas and starts replicating cfg.DB. Call it before
// the store opens the file: it refuses to start a new, empty database over
// a replica that holds a backup (restore first), and when a replica is
// ahead of the local copy (the file was restored) it resumes that
// replica's transaction numbering, as Litestream does. A replica that
// cannot be reached is logged and retried; it does not stop the start.
//
// Close the Replicator after the store: it must outlive every other
// connection to the file.
func Start(ctx context.Context, cfg Config) (*Replicator, error) {
	if cfg.DB == "" || len(cfg.URLs) == 0 {
		return nil, errors.New("replicate: a database and at least one replica URL are needed")
	}
	if cfg.SyncInterval == 0 {
		cfg.SyncInterval = DefaultSyncInterval
	}
	if cfg.SnapshotInterval == 0 {
		cfg.SnapshotInterval = DefaultSnapshotInterval
	}
	if cfg.Retention == 0 {
		cfg.Retention = DefaultRetention
	}
	switch {
	case cfg.SyncInterval < 100*time.Millisecond:
		return nil, errors.New("the replication sync interval must be at least 100ms")
	case cfg.SnapshotInterval < time.Minute:
		return nil, errors.New("the replication snapshot interval must be at least 1m")
	case cfg.Retention < cfg.SnapshotInterval:
		return nil, errors.New("the replication retention must be at least the snapshot interval (a restore needs a snapshot)")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}

	db := litestream.NewDB(cfg.DB)
	db.SetLogger(log.With("component", "litestream"))
	// No Litestream monitor goroutine: walLoop drives db.Sync, so that
	// a replica that hangs never delays reading the WAL and checkpointing.
	db.MonitorInterval = 0
	disableOwnCheckpoints(db)
	r := &Replicator{db: db, cfg: cfg, log: log, started: time.Now()}
	r.checkpointEvery.Store(int64(checkpointEvery))
	seen := map[string]bool{}
	for _, raw := range cfg.URLs {
		client, shown, err := newClient(raw, cfg.Credentials)
		if err != nil {
			return nil, err
		}
		if seen[shown] {
			return nil, fmt.Errorf("replica %s is given twice", shown)
		}
		seen[shown] = true
		r.replicas = append(r.replicas, newReplica(r, client, shown, log))
	}

	_, dbErr := os.Stat(cfg.DB)
	if err := r.probe(ctx, dbErr); err != nil {
		return nil, err
	}

	// db.Open insists on a replica. With MonitorInterval 0 it starts no
	// goroutine, and the replica is only used later, by the first sync
	// (to compare positions, done by probe for every replica) and by
	// Close (the final upload, done by Close for every replica); so it
	// is taken away again before anything reads it.
	db.Replica = r.replicas[0].lr
	if err := db.Open(); err != nil {
		return nil, fmt.Errorf("replicate: %w", err)
	}
	db.Replica = nil
	if dbErr == nil {
		// Litestream's first sync, before the store opens: nothing else
		// writes yet (see walSync).
		if err := db.Sync(ctx); err != nil {
			log.Warn("replication: first read of the WAL failed; retrying", "err", err)
		}
	}

	ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	r.wg.Add(2)
	go r.walLoop(ctx)
	go r.cleanLoop(ctx)
	for _, p := range r.replicas {
		r.wg.Add(2)
		go func() { defer r.wg.Done(); p.syncLoop(ctx) }()
		go func() { defer r.wg.Done(); p.maintainLoop(ctx) }()
	}
	log.Info("replicating", "db", cfg.DB, "replicas", len(r.replicas), "sync_interval", cfg.SyncInterval.String(),
		"snapshot_interval", cfg.SnapshotInterval.String(), "retention", cfg.Retention.String())
	return r, nil
}

// probe looks at every replica before Litestream starts: it refuses a
// missing database when a replica has a backup, and moves the local
// position up to the most advanced replica.
func (r *Replicator) probe(ctx context.Context, dbErr error) error {
	type result struct {
		info ltx.FileInfo
		err  error
	}
	results := make([]result, len(r.replicas))
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	// Some clients ignore ctx (the SSH dial of sftp), so the wait is
	// bounded here; a late answer is dropped.
	ch := make([]chan result, len(r.replicas))
	for i, p := range r.replicas {
		ch[i] = make(chan result, 1)
		go func() {
			var res result
			if res.err = p.client.Init(pctx); res.err == nil {
				res.info, res.err = p.lr.MaxLTXFileInfo(pctx, 0)
			}
			ch[i] <- res
		}()
	}
	for i := range ch {
		select {
		case results[i] = <-ch[i]:
		case <-pctx.Done():
			results[i].err = fmt.Errorf("no answer in %s", probeTimeout)
		}
	}

	var ahead *replica
	var aheadInfo ltx.FileInfo
	for i, p := range r.replicas {
		res := results[i]
		if res.err != nil {
			p.fail(fmt.Errorf("not reachable at start: %w", res.err))
			continue
		}
		if res.info.MaxTXID == 0 {
			continue
		}
		if errors.Is(dbErr, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist but replica %s holds a backup of a database: restore it first (kycd restore --from URL --db %s), or replicate to an empty location",
				r.cfg.DB, p.url, r.cfg.DB)
		}
		if res.info.MaxTXID > aheadInfo.MaxTXID {
			ahead, aheadInfo = p, res.info
		}
	}
	if ahead == nil {
		return nil
	}
	_, localTXID, err := r.db.MaxLTX()
	if err != nil {
		return fmt.Errorf("replicate: read local position: %w", err)
	}
	if localTXID >= aheadInfo.MaxTXID {
		return nil
	}
	fctx, fcancel := context.WithTimeout(ctx, probeTimeout)
	defer fcancel()
	if err := fetchPosition(fctx, r.db, ahead.client, aheadInfo); err != nil {
		return fmt.Errorf("replicate: resume from replica %s: %w", ahead.url, err)
	}
	r.log.Info("database behind replica: resuming the replica's transaction numbering", "replica", ahead.url,
		"local_txid", localTXID.String(), "replica_txid", aheadInfo.MaxTXID.String())
	return nil
}

// walEvery is how often, at most, the WAL loop reads the WAL (Litestream's
// default): it checkpoints once the WAL passes 4 MiB, so at 5 MB/s of
// writes the WAL stays under about 9 MiB.
const walEvery = time.Second

// walLoop turns new WAL frames into local LTX files every sync interval
// (every second at most), checkpoints, and then tells the replicas to
// upload. Every commit acknowledged before a WAL read starts is in the
// LTX files when it ends, so a replica that uploads them has everything
// committed up to that start: the RPO is about one sync interval.
func (r *Replicator) walLoop(ctx context.Context) {
	defer r.wg.Done()
	t := time.NewTicker(min(r.cfg.SyncInterval, walEvery))
	defer t.Stop()
	var failing time.Time
	var logged time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		start := time.Now()
		if err := r.walSync(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			if failing.IsZero() {
				failing = time.Now()
			}
			if time.Since(logged) >= errorLogEvery {
				r.log.Error("replication: cannot read the WAL", "err", err, "failing_since", failing)
				logged = time.Now()
			}
			continue
		}
		if !failing.IsZero() {
			r.log.Info("replication: reading the WAL again", "after", time.Since(failing).Round(time.Millisecond).String())
			failing, logged = time.Time{}, time.Time{}
		}
		if r.db.PageSize() == 0 {
			continue // not read yet (walSync waits for PauseWith)
		}
		r.walRead.Store(start.UnixNano())
		for _, p := range r.replicas {
			select {
			case p.kick <- struct{}{}:
			default: // still uploading the previous read
			}
		}
		r.maybeCheckpoint(ctx)
	}
}

// walSync reads the WAL. Litestream's first sync creates two tables of
// its own (_litestream_seq and _litestream_lock): a write that waits for
// the lock like a checkpoint (see disableOwnCheckpoints), so it runs in
// the store's Pause. Start already did it when the file existed.
func (r *Replicator) walSync(ctx context.Context) error {
	if r.db.PageSize() != 0 {
		return r.db.Sync(ctx)
	}
	p := r.pause.Load()
	if p == nil && time.Since(r.started) < pauseGrace {
		return nil // the store is opening: PauseWith comes next
	}
	var err error
	run := func() { err = r.db.Sync(ctx) }
	if p != nil {
		if perr := (*p)(ctx, run); perr != nil {
			return perr
		}
	} else {
		run()
	}
	return err
}

// pauseGrace is how long the first read of a new file waits for PauseWith.
const pauseGrace = 10 * time.Second

// Status returns every replica's state, in the order of Config.URLs.
func (r *Replicator) Status() []ReplicaStatus {
	if r == nil {
		return nil
	}
	now := time.Now()
	out := make([]ReplicaStatus, 0, len(r.replicas))
	for _, p := range r.replicas {
		s := p.status()
		since := s.LastSync
		if since.IsZero() {
			since = r.started
		}
		s.Lag = now.Sub(since)
		out = append(out, s)
	}
	return out
}

// Close stops replicating after a last upload of everything committed so
// far (bounded by 15 s). Call it after the store is closed. A nil
// Replicator is fine (no replication).
func (r *Replicator) Close() error {
	if r == nil {
		return nil
	}
	r.once.Do(func() {
		r.cancel()
		r.wg.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		// The store is closed: nothing else writes, so this reads the WAL
		// (the first time, maybe) without a pause.
		start := time.Now()
		if err := r.db.Sync(ctx); err != nil {
			r.log.Error("replication: last read of the WAL failed", "err", err)
		} else {
			r.walRead.Store(start.UnixNano())
		}
		done := make(chan struct{})
		var wg sync.WaitGroup
		for _, p := range r.replicas {
			wg.Go(func() {
				if err := p.sync(ctx); err != nil {
					p.fail(err)
					r.log.Error("replication: last upload failed", "replica", p.url, "err", err)
				}
			})
		}
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done(): // some clients ignore ctx (the SSH dial of sftp)
			r.log.Error("replication: last upload did not finish in time", "timeout", closeTimeout.String())
		}
		r.closeErr = r.db.Close(ctx)
		if r.closeErr == nil {
			r.log.Info("replication stopped")
		}
	})
	return r.closeErr
}
