package replicate

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
)

// cleanLoop deletes the local L0 files (one per sync, beside the database)
// that are no longer needed, every minute.
func (r *Replicator) cleanLoop(ctx context.Context) {
	defer r.wg.Done()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := r.clean(time.Now()); err != nil {
			r.log.Warn("replication: local clean-up failed", "err", err)
		}
	}
}

// clean deletes a local L0 file once every replica has it and it is older
// than Litestream's L0 retention (5 min, during which compaction reads it
// locally), or in any case once it is older than the retention: a replica
// that was away that long is seeded again with a snapshot. The newest
// file always stays: it is Litestream's position.
func (r *Replicator) clean(now time.Time) error {
	uploaded := ltx.TXID(1<<63 - 1)
	for _, p := range r.replicas {
		p.mu.Lock()
		uploaded = min(uploaded, p.txid)
		p.mu.Unlock()
	}
	dir := r.db.LTXLevelDir(0)
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		return err
	}
	_, newest, err := r.db.MaxLTX()
	if err != nil {
		return err
	}
	for _, ent := range ents {
		_, maxTXID, err := ltx.ParseFilename(ent.Name())
		if err != nil || maxTXID >= newest {
			continue
		}
		fi, err := ent.Info()
		if err != nil {
			continue
		}
		age := now.Sub(fi.ModTime())
		if (maxTXID <= uploaded && age > litestream.DefaultL0Retention) || age > r.cfg.Retention {
			if err := os.Remove(filepath.Join(dir, ent.Name())); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}
