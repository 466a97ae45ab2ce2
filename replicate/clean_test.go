package replicate

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
)

// TestClean: a local L0 file goes once every replica has it and it is
// past Litestream's L0 retention, or once it is past the retention
// whatever the replicas; the newest file always stays.
func TestClean(t *testing.T) {
	db := litestream.NewDB(filepath.Join(t.TempDir(), "kyc.db"))
	r := &Replicator{db: db, cfg: Config{Retention: time.Hour}, replicas: []*replica{{txid: 5}, {txid: 3}}}
	dir := db.LTXLevelDir(0)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ages := map[ltx.TXID]time.Duration{1: 2 * time.Hour, 2: 10 * time.Minute, 3: 10 * time.Minute,
		4: 2 * time.Hour, 5: 10 * time.Minute, 6: time.Minute, 7: 3 * time.Hour}
	for id, age := range ages {
		p := db.LTXPath(0, id, id)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, now.Add(-age), now.Add(-age))
	}
	if err := r.clean(now); err != nil {
		t.Fatal(err)
	}
	// 1-3: on both replicas and old enough; 4: past the retention;
	// 5: one replica lacks it; 6: too recent; 7: the newest.
	for id, want := range map[ltx.TXID]bool{1: false, 2: false, 3: false, 4: false, 5: true, 6: true, 7: true} {
		_, err := os.Stat(db.LTXPath(0, id, id))
		if got := err == nil; got != want {
			t.Errorf("file %d kept=%v, want %v", id, got, want)
		}
	}
}
