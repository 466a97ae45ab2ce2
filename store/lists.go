package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
)

// ListVersion is one import of a watch list.
type ListVersion struct {
	ID          string
	Source      string
	Kind        string
	Format      string
	Provider    string
	SHA256      string
	EntityCount int
	ImportedAt  time.Time
	Active      bool
}

// Ref is the version as results cite it.
func (v *ListVersion) Ref() kyc.ListVersionRef {
	return kyc.ListVersionRef{ID: v.ID, Source: v.Source, Provider: v.Provider,
		EntityCount: v.EntityCount, ImportedAt: kyc.FormatTime(v.ImportedAt)}
}

// BeginListImport stores v as an incomplete version of its source (see
// migration 0011): entities are then added with AddListEntities and the
// version made active with CompleteListImport, or removed with
// AbortListImport. Incomplete versions of the same source left by an
// import that died are deleted first.
func (tx *Tx) BeginListImport(v *ListVersion) error {
	if _, err := tx.exec(`DELETE FROM list_versions WHERE source = ? AND complete = 0`, v.Source); err != nil {
		return fmt.Errorf("remove unfinished imports: %w", err)
	}
	v.ID = "lsv_" + NewULID(tx.now)
	v.ImportedAt, v.EntityCount, v.Active = tx.now, 0, false
	_, err := tx.exec(`INSERT INTO list_versions (id, source, kind, format, provider, sha256, entity_count, imported_at, active, complete)
		VALUES (?, ?, ?, ?, ?, ?, 0, ?, 0, 0)`, v.ID, v.Source, v.Kind, v.Format, v.Provider, v.SHA256, kyc.FormatTime(tx.now))
	if err != nil {
		return fmt.Errorf("insert list version: %w", err)
	}
	return nil
}

// AddListEntities stores entity bodies of an incomplete version, numbered
// from seq.
func (tx *Tx) AddListEntities(versionID string, seq int, bodies [][]byte) error {
	for i, body := range bodies {
		if _, err := tx.exec(`INSERT INTO list_entities (version_id, seq, body) VALUES (?, ?, ?)`, versionID, seq+i, body); err != nil {
			return fmt.Errorf("insert list entity: %w", err)
		}
	}
	return nil
}

// inlinePurge is the size up to which a superseded version's entities are
// deleted in the transaction that replaces it (a few tens of milliseconds);
// bigger ones are left to PurgeListEntities.
const inlinePurge = 20000

// CompleteListImport makes an incomplete version holding count entities
// its source's active version, in one transaction with the rest of tx:
// screening sees the old version or the new one, never a mix. The
// superseded versions' entities are deleted, except those of versions
// bigger than inlinePurge, which are returned still holding them (delete
// them with PurgeListEntities after the commit, in short transactions).
// Monitored AML checks become due at once (trigger list_update).
func (tx *Tx) CompleteListImport(v *ListVersion, count int) (superseded []string, err error) {
	res, err := tx.exec(`UPDATE list_versions SET complete = 1, active = 0, entity_count = ? WHERE id = ? AND complete = 0`, count, v.ID)
	if err != nil {
		return nil, fmt.Errorf("complete list version: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, fmt.Errorf("list version %s was removed while it was imported (another import of %s started)", v.ID, v.Source)
	}
	old, err := tx.activeVersions(v.Source)
	if err != nil {
		return nil, err
	}
	for _, id := range old {
		if _, err := tx.exec(`UPDATE list_versions SET active = 0 WHERE id = ?`, id); err != nil {
			return nil, fmt.Errorf("deactivate version: %w", err)
		}
		var n int
		if err := tx.queryRow(`SELECT entity_count FROM list_versions WHERE id = ?`, id).Scan(&n); err != nil {
			return nil, fmt.Errorf("count old entities: %w", err)
		}
		if n > inlinePurge {
			superseded = append(superseded, id)
			continue
		}
		if _, err := tx.exec(`DELETE FROM list_entities WHERE version_id = ?`, id); err != nil {
			return nil, fmt.Errorf("delete old entities: %w", err)
		}
	}
	if _, err := tx.exec(`UPDATE list_versions SET active = 1 WHERE id = ?`, v.ID); err != nil {
		return nil, fmt.Errorf("activate version: %w", err)
	}
	v.EntityCount, v.Active = count, true
	if err := tx.markChecksDue(); err != nil {
		return nil, err
	}
	if err := tx.auditOperatorAction("", "", "list_version", v.ID, "watch_list.imported", fmt.Sprintf(
		"source %s, kind %s, format %s, %d entities, sha256 %s; replaces %s", v.Source, v.Kind, v.Format, count, v.SHA256, orNone(old))); err != nil {
		return nil, err
	}
	return superseded, nil
}

// AbortListImport removes an incomplete version and its entities.
func (s *Store) AbortListImport(ctx context.Context, versionID string) error {
	return s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.exec(`DELETE FROM list_versions WHERE id = ? AND complete = 0`, versionID)
		return err
	})
}

// purgeBatch is how many entities one purge transaction deletes: a few
// milliseconds of write lock.
const purgeBatch = 5000

// PurgeListEntities deletes a superseded version's entities (its row
// stays: results cite it), a batch per transaction.
func (s *Store) PurgeListEntities(ctx context.Context, versionID string) error {
	for {
		var n int64
		err := s.InTx(ctx, func(tx *Tx) error {
			res, err := tx.exec(`DELETE FROM list_entities WHERE version_id = ? AND seq IN
				(SELECT seq FROM list_entities WHERE version_id = ? AND EXISTS (SELECT 1 FROM list_versions WHERE id = ? AND active = 0) LIMIT ?)`,
				versionID, versionID, versionID, purgeBatch)
			if err != nil {
				return fmt.Errorf("delete old entities: %w", err)
			}
			n, _ = res.RowsAffected()
			return nil
		})
		if err != nil || n < purgeBatch {
			return err
		}
	}
}

func (tx *Tx) activeVersions(source string) ([]string, error) {
	var old []string
	rows, err := tx.q.QueryContext(context.Background(), `SELECT id FROM list_versions WHERE source = ? AND active = 1`, source)
	if err != nil {
		return nil, fmt.Errorf("find active version: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("scan version: %w", err)
		}
		old = append(old, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find active version: %w", err)
	}
	return old, nil
}

func (tx *Tx) markChecksDue() error {
	_, err := tx.exec(`UPDATE aml_checks SET next_screen_at = ? WHERE next_screen_at IS NOT NULL AND next_screen_at > ?`,
		listUpdateMark(tx.now), kyc.FormatTime(tx.now))
	if err != nil {
		return fmt.Errorf("mark checks due: %w", err)
	}
	return nil
}

func orNone(ids []string) string {
	if len(ids) == 0 {
		return "nothing"
	}
	return strings.Join(ids, ", ")
}

// listUpdateMark is the next_screen_at given to monitored checks when a
// list changes. It is the import time, minus one millisecond so it sorts
// before checks that were already due at that instant; the monitoring job
// tells a list-update re-screen from a daily one by comparing the time it
// was due with the check's last screening plus a day.
func listUpdateMark(now time.Time) string { return kyc.FormatTime(now.Add(-time.Millisecond)) }

const listVersionColumns = `id, source, kind, format, provider, sha256, entity_count, imported_at, active`

func scanListVersion(row scanner) (*ListVersion, error) {
	var v ListVersion
	var imported string
	var active int
	if err := row.Scan(&v.ID, &v.Source, &v.Kind, &v.Format, &v.Provider, &v.SHA256, &v.EntityCount, &imported, &active); err != nil {
		return nil, err
	}
	v.ImportedAt, v.Active = parseTime(imported), active == 1
	return &v, nil
}

// ActiveListVersions returns the active version of each source, in the
// transaction (an import compares its new version with them before the
// swap).
func (tx *Tx) ActiveListVersions() ([]*ListVersion, error) {
	rows, err := tx.q.QueryContext(context.Background(), `SELECT `+listVersionColumns+` FROM list_versions WHERE active = 1 ORDER BY id DESC`)
	if err != nil {
		return nil, fmt.Errorf("find active list versions: %w", err)
	}
	defer rows.Close()
	var out []*ListVersion
	for rows.Next() {
		v, err := scanListVersion(rows)
		if err != nil {
			return nil, fmt.Errorf("scan list version: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// FindListVersions returns every version, newest first; with activeOnly,
// only the version of each source that screening uses.
func (s *Store) FindListVersions(ctx context.Context, activeOnly bool) ([]*ListVersion, error) {
	q := `SELECT ` + listVersionColumns + ` FROM list_versions`
	if activeOnly {
		q += ` WHERE active = 1`
	} else {
		q += ` WHERE complete = 1`
	}
	rows, err := s.reader.QueryContext(ctx, q+` ORDER BY id DESC`)
	if err != nil {
		return nil, fmt.Errorf("find list versions: %w", err)
	}
	defer rows.Close()
	var out []*ListVersion
	for rows.Next() {
		v, err := scanListVersion(rows)
		if err != nil {
			return nil, fmt.Errorf("scan list version: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// LoadListEntities calls fn with each entity body of a version, in import
// order. It reads in one snapshot, so an import running meanwhile is not
// seen half-done.
func (s *Store) LoadListEntities(ctx context.Context, versionID string, fn func(body []byte) error) error {
	rows, err := s.reader.QueryContext(ctx, `SELECT body FROM list_entities WHERE version_id = ? ORDER BY seq`, versionID)
	if err != nil {
		return fmt.Errorf("load list entities: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return fmt.Errorf("scan list entity: %w", err)
		}
		if err := fn(body); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load list entities: %w", err)
	}
	return nil
}
