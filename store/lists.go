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

// ImportListVersion stores a new version of a list with its entities
// (JSON bodies) and makes it the source's active version, in one
// transaction: screening sees the old version or the new one, never a mix.
// The superseded version's entities are deleted; its row stays, because
// results cite it. Monitored AML checks become due at once, so they are
// re-screened against the new data (trigger list_update).
func (tx *Tx) ImportListVersion(v *ListVersion, entities [][]byte) error {
	v.ID = "lsv_" + NewULID(tx.now)
	v.ImportedAt = tx.now
	v.EntityCount = len(entities)
	v.Active = true
	var old []string
	rows, err := tx.q.QueryContext(context.Background(), `SELECT id FROM list_versions WHERE source = ? AND active = 1`, v.Source)
	if err != nil {
		return fmt.Errorf("find active version: %w", err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("scan version: %w", err)
		}
		old = append(old, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find active version: %w", err)
	}
	for _, id := range old {
		if _, err := tx.exec(`UPDATE list_versions SET active = 0 WHERE id = ?`, id); err != nil {
			return fmt.Errorf("deactivate version: %w", err)
		}
		if _, err := tx.exec(`DELETE FROM list_entities WHERE version_id = ?`, id); err != nil {
			return fmt.Errorf("delete old entities: %w", err)
		}
	}
	if _, err := tx.exec(`INSERT INTO list_versions (id, source, kind, format, provider, sha256, entity_count, imported_at, active)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)`, v.ID, v.Source, v.Kind, v.Format, v.Provider, v.SHA256, v.EntityCount,
		kyc.FormatTime(tx.now)); err != nil {
		return fmt.Errorf("insert list version: %w", err)
	}
	for i, body := range entities {
		if _, err := tx.exec(`INSERT INTO list_entities (version_id, seq, body) VALUES (?, ?, ?)`, v.ID, i, body); err != nil {
			return fmt.Errorf("insert list entity: %w", err)
		}
	}
	_, err = tx.exec(`UPDATE aml_checks SET next_screen_at = ? WHERE next_screen_at IS NOT NULL AND next_screen_at > ?`,
		listUpdateMark(tx.now), kyc.FormatTime(tx.now))
	if err != nil {
		return fmt.Errorf("mark checks due: %w", err)
	}
	return tx.auditOperatorAction("", "", "list_version", v.ID, "watch_list.imported", fmt.Sprintf(
		"source %s, kind %s, format %s, %d entities, sha256 %s; replaces %s", v.Source, v.Kind, v.Format, v.EntityCount, v.SHA256, orNone(old)))
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

// FindListVersions returns every version, newest first; with activeOnly,
// only the version of each source that screening uses.
func (s *Store) FindListVersions(ctx context.Context, activeOnly bool) ([]*ListVersion, error) {
	q := `SELECT ` + listVersionColumns + ` FROM list_versions`
	if activeOnly {
		q += ` WHERE active = 1`
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
