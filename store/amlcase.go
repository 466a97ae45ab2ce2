package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"kycd/kyc"
)

const amlCaseColumns = `c.id, c.organization_id, c.environment, c.check_id, c.match_id, c.match_key, a.first_name || ' ' || a.last_name,
	c.status, c.outcome, c.assignee_id, u.name, c.due_at, c.opened_at, c.closed_at, c.updated_at, c.sar_reference, c.sar_filed_on,
	c.sar_recorded_at, c.sar_actor_type, c.sar_actor_id, c.sar_file_name, c.sar_file_type, c.sar_file_size, c.sar_file_sha256`

const amlCaseFrom = ` FROM aml_cases c JOIN aml_checks a ON a.id = c.check_id LEFT JOIN users u ON u.id = c.assignee_id`

// AMLCaseFilter selects cases for a list.
type AMLCaseFilter struct {
	Status     kyc.AMLCaseStatus // "" for any
	AssigneeID string            // "" for anyone
	Overdue    bool              // open and past the due time at Now
	Now        time.Time
	Page, Size int
}

// OpenAMLCaseFor returns the open case of an AML check, or nil.
func (tx *Tx) OpenAMLCaseFor(checkID string) (*kyc.AMLCase, error) {
	c, err := scanAMLCase(tx.q.QueryRowContext(context.Background(), `SELECT `+amlCaseColumns+amlCaseFrom+`
		WHERE c.check_id = ? AND c.status = 'open'`, checkID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return c, err
}

// CreateAMLCase stores a new open case; its id and times are set here.
func (tx *Tx) CreateAMLCase(c *kyc.AMLCase) error {
	c.ID, c.Status, c.OpenedAt, c.UpdatedAt = "amc_"+NewULID(tx.now), kyc.AMLCaseOpen, tx.now, tx.now
	_, err := tx.exec(`INSERT INTO aml_cases (id, organization_id, environment, check_id, match_id, match_key, status, assignee_id,
		due_at, opened_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?)`, c.ID, c.OrganizationID, string(c.Environment),
		c.CheckID, c.MatchID, c.MatchKey, c.AssigneeID, timeOrNil(c.DueAt), kyc.FormatTime(tx.now), kyc.FormatTime(tx.now))
	if err != nil {
		return fmt.Errorf("insert aml case: %w", err)
	}
	return nil
}

// SaveAMLCase writes a case's status, outcome, assignee and due time.
func (tx *Tx) SaveAMLCase(c *kyc.AMLCase) error {
	c.UpdatedAt = tx.now
	var outcome any
	if c.Outcome != nil {
		outcome = string(*c.Outcome)
	}
	_, err := tx.exec(`UPDATE aml_cases SET status = ?, outcome = ?, assignee_id = ?, due_at = ?, closed_at = ?, updated_at = ?
		WHERE id = ?`, string(c.Status), outcome, c.AssigneeID, timeOrNil(c.DueAt), timeOrNil(c.ClosedAt), kyc.FormatTime(tx.now), c.ID)
	if err != nil {
		return fmt.Errorf("update aml case: %w", err)
	}
	return nil
}

// SetAMLCaseSAR records the suspicious-activity report of a case, with
// its copy sealed under the data key (the case id is the associated data,
// so the copy does not open on another row). A later record replaces it.
func (tx *Tx) SetAMLCaseSAR(c *kyc.AMLCase, sar *kyc.SARRecord, file []byte) error {
	sar.RecordedAt = tx.now
	var keyID any
	var sealed []byte
	if sar.File != nil {
		id, s, err := tx.keys.seal(file, sarAAD(c.ID))
		if err != nil {
			return fmt.Errorf("seal sar: %w", err)
		}
		sum := sha256.Sum256(file)
		sar.File.Size, sar.File.SHA256, keyID, sealed = len(file), hex.EncodeToString(sum[:]), id, s
	}
	var name, typ, sum any
	var size any
	if sar.File != nil {
		name, typ, size, sum = sar.File.Name, sar.File.ContentType, sar.File.Size, sar.File.SHA256
	}
	_, err := tx.exec(`UPDATE aml_cases SET sar_reference = ?, sar_filed_on = ?, sar_recorded_at = ?, sar_actor_type = ?, sar_actor_id = ?,
		sar_file_name = ?, sar_file_type = ?, sar_file_size = ?, sar_file_sha256 = ?, sar_file = ?, sar_key_id = ?, updated_at = ? WHERE id = ?`,
		sar.Reference, sar.FiledOn, kyc.FormatTime(tx.now), string(sar.ActorType), sar.ActorID, name, typ, size, sum, sealed, keyID,
		kyc.FormatTime(tx.now), c.ID)
	if err != nil {
		return fmt.Errorf("record sar: %w", err)
	}
	c.SAR, c.UpdatedAt = sar, tx.now
	return nil
}

func sarAAD(caseID string) string { return "kycd sar " + caseID }

// AMLCaseSARFile returns the opened copy of a case's SAR; NOT_FOUND when
// none was attached.
func (s *Store) AMLCaseSARFile(ctx context.Context, c *kyc.AMLCase) ([]byte, error) {
	var sealed []byte
	var keyID sql.NullInt64
	if err := s.reader.QueryRowContext(ctx, `SELECT sar_file, sar_key_id FROM aml_cases WHERE id = ? AND organization_id = ?`,
		c.ID, c.OrganizationID).Scan(&sealed, &keyID); err != nil {
		return nil, fmt.Errorf("read sar file: %w", err)
	}
	if sealed == nil || !keyID.Valid {
		return nil, kyc.Errorf(kyc.ENotFound, "AML case %s has no report file.", c.ID)
	}
	return s.keys.open(keyID.Int64, sealed, sarAAD(c.ID))
}

// AddAMLCaseEntry appends one entry to a case's timeline.
func (tx *Tx) AddAMLCaseEntry(caseID string, e *kyc.AMLCaseEntry) error {
	e.ID, e.CreatedAt = "ace_"+NewULID(tx.now), tx.now
	_, err := tx.exec(`INSERT INTO aml_case_entries (id, case_id, kind, text, actor_type, actor_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		e.ID, caseID, string(e.Kind), e.Text, string(e.ActorType), e.ActorID, kyc.FormatTime(tx.now))
	if err != nil {
		return fmt.Errorf("insert aml case entry: %w", err)
	}
	return nil
}

// FindAMLCase returns one case of the organization with its timeline:
// NOT_FOUND when it is not the organization's, wrong_environment in its
// other environment.
func (s *Store) FindAMLCase(ctx context.Context, orgID string, env kyc.Environment, id string) (*kyc.AMLCase, error) {
	return findAMLCase(ctx, readPool{s.readStmts}, orgID, env, id)
}

// FindAMLCase is Store.FindAMLCase inside the write transaction.
func (tx *Tx) FindAMLCase(orgID string, env kyc.Environment, id string) (*kyc.AMLCase, error) {
	return findAMLCase(context.Background(), tx.q, orgID, env, id)
}

func findAMLCase(ctx context.Context, q queryer, orgID string, env kyc.Environment, id string) (*kyc.AMLCase, error) {
	if kind, _ := kyc.ClassifyID("amc_", id); kind != kyc.IDInternal {
		return nil, kyc.Errorf(kyc.ENotFound, "AML case %s not found.", id)
	}
	c, err := scanAMLCase(q.QueryRowContext(ctx, `SELECT `+amlCaseColumns+amlCaseFrom+` WHERE c.id = ? AND c.organization_id = ?`, id, orgID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "AML case %s not found.", id)
	}
	if err != nil {
		return nil, err
	}
	if c.Environment != env {
		return nil, wrongEnvironment("AML case", id, c.Environment, env)
	}
	rows, err := q.QueryContext(ctx, `SELECT e.id, e.kind, e.text, e.actor_type, e.actor_id, u.name, e.created_at FROM aml_case_entries e
		LEFT JOIN users u ON u.id = e.actor_id AND e.actor_type = 'user' WHERE e.case_id = ? ORDER BY e.id`, c.ID)
	if err != nil {
		return nil, fmt.Errorf("find aml case entries: %w", err)
	}
	defer rows.Close()
	c.Timeline = []kyc.AMLCaseEntry{}
	for rows.Next() {
		var e kyc.AMLCaseEntry
		var kind, actorType, created string
		var name sql.NullString
		if err := rows.Scan(&e.ID, &kind, &e.Text, &actorType, &e.ActorID, &name, &created); err != nil {
			return nil, fmt.Errorf("scan aml case entry: %w", err)
		}
		e.Kind, e.ActorType, e.CreatedAt = kyc.AMLCaseEntryKind(kind), kyc.ActorType(actorType), parseTime(created)
		if name.Valid {
			e.ActorName = &name.String
		}
		c.Timeline = append(c.Timeline, e)
	}
	return c, rows.Err()
}

// FindAMLCases returns one page of the organization's cases in env, open
// ones by due time first (no due time last), then newest; and the total.
func (s *Store) FindAMLCases(ctx context.Context, orgID string, env kyc.Environment, f AMLCaseFilter) ([]*kyc.AMLCase, int, error) {
	where := ` WHERE c.organization_id = ? AND c.environment = ?`
	args := []any{orgID, string(env)}
	if f.Status != "" {
		where += ` AND c.status = ?`
		args = append(args, string(f.Status))
	}
	if f.AssigneeID != "" {
		where += ` AND c.assignee_id = ?`
		args = append(args, f.AssigneeID)
	}
	if f.Overdue {
		where += ` AND c.status = 'open' AND c.due_at IS NOT NULL AND c.due_at < ?`
		args = append(args, kyc.FormatTime(f.Now))
	}
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM aml_cases c`+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count aml cases: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+amlCaseColumns+amlCaseFrom+where+`
		ORDER BY CASE c.status WHEN 'open' THEN 0 ELSE 1 END, CASE WHEN c.due_at IS NULL THEN 1 ELSE 0 END, c.due_at, c.id DESC
		LIMIT ? OFFSET ?`, append(args, f.Size, (f.Page-1)*f.Size)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find aml cases: %w", err)
	}
	defer rows.Close()
	list := make([]*kyc.AMLCase, 0, f.Size)
	for rows.Next() {
		c, err := scanAMLCase(rows)
		if err != nil {
			return nil, 0, err
		}
		list = append(list, c)
	}
	return list, total, rows.Err()
}

func scanAMLCase(row scanner) (*kyc.AMLCase, error) {
	var c kyc.AMLCase
	var env, status, opened, updated string
	var outcome, assignee, assigneeName, due, closed, sarRef, sarOn, sarAt, sarActorType, sarActor, fileName, fileType, fileSum sql.NullString
	var fileSize sql.NullInt64
	if err := row.Scan(&c.ID, &c.OrganizationID, &env, &c.CheckID, &c.MatchID, &c.MatchKey, &c.Subject, &status, &outcome, &assignee,
		&assigneeName, &due, &opened, &closed, &updated, &sarRef, &sarOn, &sarAt, &sarActorType, &sarActor, &fileName, &fileType,
		&fileSize, &fileSum); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("scan aml case: %w", err)
	}
	c.Environment, c.Status, c.OpenedAt, c.UpdatedAt = kyc.Environment(env), kyc.AMLCaseStatus(status), parseTime(opened), parseTime(updated)
	if outcome.Valid {
		o := kyc.AMLCaseOutcome(outcome.String)
		c.Outcome = &o
	}
	if assignee.Valid {
		c.AssigneeID = &assignee.String
		if assigneeName.Valid {
			c.AssigneeName = &assigneeName.String
		}
	}
	c.DueAt, c.ClosedAt = optTime(due), optTime(closed)
	if sarRef.Valid {
		c.SAR = &kyc.SARRecord{Reference: sarRef.String, FiledOn: sarOn.String, RecordedAt: parseTime(sarAt.String),
			ActorType: kyc.ActorType(sarActorType.String), ActorID: sarActor.String}
		if fileName.Valid {
			c.SAR.File = &kyc.SARFile{Name: fileName.String, ContentType: fileType.String, Size: int(fileSize.Int64), SHA256: fileSum.String}
		}
	}
	return &c, nil
}

// FindAMLCasesOfCheck returns the cases an AML check opened, newest first
// (the console's alert page links them).
func (s *Store) FindAMLCasesOfCheck(ctx context.Context, orgID string, env kyc.Environment, checkID string) ([]*kyc.AMLCase, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+amlCaseColumns+amlCaseFrom+`
		WHERE c.organization_id = ? AND c.environment = ? AND c.check_id = ? ORDER BY c.id DESC`, orgID, string(env), checkID)
	if err != nil {
		return nil, fmt.Errorf("find aml cases of check: %w", err)
	}
	defer rows.Close()
	var list []*kyc.AMLCase
	for rows.Next() {
		c, err := scanAMLCase(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, c)
	}
	return list, rows.Err()
}
