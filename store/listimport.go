package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"kycd/kyc"
)

// ListImport is an import of list files uploaded through the console and
// run in the background (aml.ListImports). Its row is its progress, so
// that any instance of a fleet can show it.
type ListImport struct {
	ID         string // lim_<ulid>
	Source     string
	Kind       string
	Format     string
	Provider   string // as typed; "" for the format's default
	Force      bool
	Files      []ListImportFile
	State      string // one of the ListImport* states
	Phase      string // checking, importing, loading, done
	Bytes      int64  // read in this phase
	Total      int64  // bytes of all the files
	Entities   int    // stored so far
	VersionID  string // the new version, or the unchanged one it matched
	Error      string
	ActorID    string // the user who uploaded the files ("" once deleted)
	CreatedAt  time.Time
	UpdatedAt  time.Time // the heartbeat while running
	FinishedAt *time.Time
}

// ListImportFile is one uploaded file.
type ListImportFile struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// The states of a list import.
const (
	ListImportRunning     = "running"
	ListImportImported    = "imported"
	ListImportUnchanged   = "unchanged" // the files were the active version's: nothing stored
	ListImportFailed      = "failed"
	ListImportInterrupted = "interrupted" // kycd stopped (or died) before the end
)

// ListImportStale is how long a running import's row may go without an
// update before it counts as interrupted: its instance died. The runner
// writes at least every few seconds (aml.ListImports).
const ListImportStale = 30 * time.Second

// StateAt is the import's state as people should see it at now: a
// running row whose heartbeat stopped is interrupted.
func (li *ListImport) StateAt(now time.Time) string {
	if li.State == ListImportRunning && now.Sub(li.UpdatedAt) > ListImportStale {
		return ListImportInterrupted
	}
	return li.State
}

// errStaleImport is the error recorded on an import whose instance died.
const errStaleImport = "The kycd instance running it stopped sending progress (it was shut down or died)."

// errImportRunning refuses a second import while one runs.
func errImportRunning(running *ListImport) error {
	msg := "Another watch-list import is running; wait for it to finish (one import at a time, for the whole installation)."
	if running != nil {
		msg = fmt.Sprintf("Another watch-list import is running (%s, source %s, started %s); wait for it to finish: one import runs at a time, for the whole installation.",
			running.ID, running.Source, running.CreatedAt.UTC().Format("15:04:05 UTC"))
	}
	return &kyc.Error{Code: kyc.EConflict, Message: msg}
}

// CreateListImport records a new running import (its ID is set here).
// Only one import runs at a time in the whole installation: CONFLICT while
// another is running. A running row whose heartbeat is older than
// ListImportStale is marked interrupted first.
func (tx *Tx) CreateListImport(li *ListImport) error {
	if _, err := tx.exec(`UPDATE list_imports SET state = 'interrupted', error = ?, finished_at = ?, updated_at = ?
		WHERE state = 'running' AND updated_at < ?`, errStaleImport, kyc.FormatTime(tx.now), kyc.FormatTime(tx.now),
		kyc.FormatTime(tx.now.Add(-ListImportStale))); err != nil {
		return fmt.Errorf("expire list imports: %w", err)
	}
	running, err := scanListImport(tx.queryRow(`SELECT ` + listImportColumns + ` FROM list_imports WHERE state = 'running'`))
	if err == nil {
		return errImportRunning(running)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("find running list import: %w", err)
	}
	files, err := json.Marshal(li.Files)
	if err != nil {
		return fmt.Errorf("encode files: %w", err)
	}
	li.ID = "lim_" + NewULID(tx.now)
	li.State, li.Phase, li.Bytes, li.Entities = ListImportRunning, "checking", 0, 0
	li.CreatedAt, li.UpdatedAt, li.FinishedAt = tx.now, tx.now, nil
	_, err = tx.exec(`INSERT INTO list_imports (id, source, kind, format, provider, forced, files, state, phase, bytes, total, entities,
		actor_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', 'checking', 0, ?, 0, ?, ?, ?)`,
		li.ID, li.Source, li.Kind, li.Format, li.Provider, boolInt(li.Force), string(files), li.Total, nullString(li.ActorID),
		kyc.FormatTime(tx.now), kyc.FormatTime(tx.now))
	if errors.Is(err, errUnique) {
		return errImportRunning(nil) // the index's word, should the check above ever miss one
	}
	if err != nil {
		return fmt.Errorf("insert list import: %w", err)
	}
	return tx.auditOperatorAction("", "", "list_import", li.ID, "watch_list.import_started", fmt.Sprintf(
		"source %s, kind %s, format %s, %d file(s), %d bytes; force %v", li.Source, li.Kind, li.Format, len(li.Files), li.Total, li.Force))
}

// ListImportProgress is how far a running import is.
type ListImportProgress struct {
	Phase    string
	Bytes    int64
	Total    int64
	Entities int
}

// ErrListImportTaken means a running import's row is no longer running:
// another instance took it for dead (its heartbeat was late) and marked it
// interrupted. The import must stop.
var ErrListImportTaken = errors.New("store: the list import was marked interrupted meanwhile")

// UpdateListImportProgress records p and the heartbeat of a running
// import; ErrListImportTaken when the row no longer runs. It only touches
// list_imports, so on PostgreSQL it skips the fleet-wide write lock.
func (s *Store) UpdateListImportProgress(ctx context.Context, id string, p ListImportProgress) error {
	return s.inTxNoFleetLock(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE list_imports SET phase = ?, bytes = ?, total = ?, entities = ?, updated_at = ? WHERE id = ? AND state = 'running'`,
			p.Phase, p.Bytes, p.Total, p.Entities, kyc.FormatTime(tx.now), id)
		if err != nil {
			return fmt.Errorf("update list import: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrListImportTaken
		}
		return nil
	})
}

// FinishListImport records how an import ended: state (imported,
// unchanged, failed or interrupted), the version it made or matched, the
// error, and its last progress.
func (s *Store) FinishListImport(ctx context.Context, id, state, versionID, errText string, p ListImportProgress) error {
	return s.inTxNoFleetLock(ctx, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE list_imports SET state = ?, phase = ?, bytes = ?, total = ?, entities = ?, version_id = ?, error = ?,
			updated_at = ?, finished_at = ? WHERE id = ?`, state, p.Phase, p.Bytes, p.Total, p.Entities, nullString(versionID),
			nullString(errText), kyc.FormatTime(tx.now), kyc.FormatTime(tx.now), id)
		if err != nil {
			return fmt.Errorf("finish list import: %w", err)
		}
		return nil
	})
}

const listImportColumns = `id, source, kind, format, provider, forced, files, state, phase, bytes, total, entities,
	coalesce(version_id, ''), coalesce(error, ''), coalesce(actor_id, ''), created_at, updated_at, finished_at`

func scanListImport(row scanner) (*ListImport, error) {
	var li ListImport
	var force int
	var files, created, updated string
	var finished sql.NullString
	if err := row.Scan(&li.ID, &li.Source, &li.Kind, &li.Format, &li.Provider, &force, &files, &li.State, &li.Phase, &li.Bytes,
		&li.Total, &li.Entities, &li.VersionID, &li.Error, &li.ActorID, &created, &updated, &finished); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(files), &li.Files); err != nil {
		return nil, fmt.Errorf("decode files of %s: %w", li.ID, err)
	}
	li.Force, li.CreatedAt, li.UpdatedAt, li.FinishedAt = force == 1, parseTime(created), parseTime(updated), parseTimePtr(finished)
	return &li, nil
}

// FindListImport returns one import: NOT_FOUND when there is none.
func (s *Store) FindListImport(ctx context.Context, id string) (*ListImport, error) {
	li, err := scanListImport(s.reader.QueryRowContext(ctx, `SELECT `+listImportColumns+` FROM list_imports WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "List import %s not found.", id)
	}
	if err != nil {
		return nil, fmt.Errorf("find list import: %w", err)
	}
	return li, nil
}

// FindListImports returns the newest imports, newest first. A running
// import is always the newest: none starts while one runs.
func (s *Store) FindListImports(ctx context.Context, limit int) ([]*ListImport, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+listImportColumns+` FROM list_imports ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("find list imports: %w", err)
	}
	defer rows.Close()
	var out []*ListImport
	for rows.Next() {
		li, err := scanListImport(rows)
		if err != nil {
			return nil, fmt.Errorf("scan list import: %w", err)
		}
		out = append(out, li)
	}
	return out, rows.Err()
}
