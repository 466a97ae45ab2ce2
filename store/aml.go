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

// MonitoringInterval is how often a monitored check is re-screened
// (spec §8: daily).
const MonitoringInterval = 24 * time.Hour

const amlColumns = `id, public_id, organization_id, environment, first_name, last_name, dob, country, monitoring,
	status, risk_level, match_count, threshold, results, last_screened_at, next_screen_at, created_at, updated_at,
	review_status, resolved_at, erased_at`

// CreateAMLCheck stores a screened check and its first history entry. The
// caller fills the subject, threshold and results; ids and times are set
// here.
func (tx *Tx) CreateAMLCheck(c *kyc.AMLCheck, sc *kyc.Screening) error {
	c.ID, c.PublicID = "aml_"+NewULID(tx.now), NewPublicID("aml_")
	c.CreatedAt, c.UpdatedAt, c.LastScreenedAt = tx.now, tx.now, tx.now
	c.NextScreenAt = nil
	if c.MonitoringEnabled {
		next := tx.now.Add(MonitoringInterval)
		c.NextScreenAt = &next
	}
	results, err := encodeResults(c.Results)
	if err != nil {
		return err
	}
	// The caller may have settled every match already (suppressed false
	// positives of the subject): then the check is resolved from the start.
	c.ResolvedAt = nil
	switch {
	case c.MatchCount == 0:
		c.ReviewStatus = kyc.AMLReviewNotRequired
	case c.ReviewStatus == kyc.AMLReviewResolved:
		now := tx.now
		c.ResolvedAt = &now
	default:
		c.ReviewStatus = kyc.AMLReviewPending
	}
	_, err = tx.exec(`INSERT INTO aml_checks (`+amlColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
		c.ID, c.PublicID, c.OrganizationID, string(c.Environment), c.FirstName, c.LastName, c.DOB, c.Country,
		boolInt(c.MonitoringEnabled), string(c.Status), riskString(c.RiskLevel), c.MatchCount, c.Threshold, results,
		kyc.FormatTime(tx.now), timeOrNil(c.NextScreenAt), kyc.FormatTime(tx.now), kyc.FormatTime(tx.now), string(c.ReviewStatus),
		timeOrNil(c.ResolvedAt))
	if err != nil {
		return fmt.Errorf("insert aml check: %w", err)
	}
	if err := tx.auditChange(c.OrganizationID, c.Environment, "aml_check", c.ID, "aml_check.created", nil, string(c.Status), ""); err != nil {
		return err
	}
	return tx.insertScreening(c.ID, sc)
}

// RecordRescreen stores a monitoring re-screen: the check's new results
// and a history entry, and schedules the next re-screen a day later. It
// reports false (and writes nothing) when monitoring was turned off since
// the check was read.
//
// The caller sets c.ReviewStatus from the decisions that apply to the new
// results; resolved_at keeps its time while the check stays resolved.
func (tx *Tx) RecordRescreen(c *kyc.AMLCheck, sc *kyc.Screening) (bool, error) {
	return tx.recordScreening(c, sc, true)
}

// RecordManualRescreen stores a re-screen asked for through the API (how a
// failed check is retried): the check's new results and a history entry.
// A monitored check's next daily re-screen moves to a day from now; an
// unmonitored check stays unmonitored.
func (tx *Tx) RecordManualRescreen(c *kyc.AMLCheck, sc *kyc.Screening) error {
	_, err := tx.recordScreening(c, sc, false)
	return err
}

func (tx *Tx) recordScreening(c *kyc.AMLCheck, sc *kyc.Screening, monitoredOnly bool) (bool, error) {
	results, err := encodeResults(c.Results)
	if err != nil {
		return false, err
	}
	var next *time.Time
	if c.MonitoringEnabled || monitoredOnly {
		n := tx.now.Add(MonitoringInterval)
		next = &n
	}
	// An erased check is a tombstone: nothing is screened on it again.
	cond := ` AND erased_at IS NULL`
	if c.ErasedAt != nil && !monitoredOnly {
		return false, errAMLCheckErased(c.ID)
	}
	if monitoredOnly {
		cond += ` AND monitoring = 1`
	}
	res, err := tx.exec(`UPDATE aml_checks SET status = ?, risk_level = ?, match_count = ?, results = ?,
		last_screened_at = ?, next_screen_at = ?, updated_at = ?, review_status = ?,
		resolved_at = CASE WHEN ? = 'resolved' THEN coalesce(resolved_at, ?) END WHERE id = ?`+cond,
		string(c.Status), riskString(c.RiskLevel), c.MatchCount, results, kyc.FormatTime(tx.now),
		timeOrNil(next), kyc.FormatTime(tx.now), string(c.ReviewStatus), string(c.ReviewStatus), kyc.FormatTime(tx.now), c.ID)
	if err != nil {
		return false, fmt.Errorf("update aml check: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if !monitoredOnly {
			return false, fmt.Errorf("update aml check %s: no such row", c.ID)
		}
		return false, nil
	}
	c.LastScreenedAt, c.NextScreenAt, c.UpdatedAt = tx.now, next, tx.now
	// A re-screen someone asked for is always a change they made; the
	// daily one (the system's) is recorded when it changed the outcome,
	// not each day a monitored check stays as it was (its history has
	// every screening).
	if !monitoredOnly || sc.Changed {
		if err := tx.auditChange(c.OrganizationID, c.Environment, "aml_check", c.ID, "aml_check.rescreened", nil, string(c.Status),
			"trigger: "+sc.Trigger); err != nil {
			return false, err
		}
	}
	return true, tx.insertScreening(c.ID, sc)
}

// FindAMLCheck is Store.FindAMLCheck inside the write transaction.
func (tx *Tx) FindAMLCheck(orgID string, env kyc.Environment, idParam string) (*kyc.AMLCheck, error) {
	return findAMLCheck(context.Background(), tx.q, orgID, env, idParam)
}

func (tx *Tx) insertScreening(checkID string, sc *kyc.Screening) error {
	sc.ID, sc.ScreenedAt = "ams_"+NewULID(tx.now), tx.now
	changes := sc.ChangedEntities
	if changes == nil {
		changes = []kyc.EntityChange{}
	}
	detail, err := json.Marshal(map[string]any{
		"newMatches": nonNil(sc.NewMatches), "removedMatches": nonNil(sc.RemovedMatches), "listVersions": nonNil(sc.ListVersions),
		"changedEntities": changes,
	})
	if err != nil {
		return fmt.Errorf("encode screening: %w", err)
	}
	var prev any
	if sc.PreviousStatus != nil {
		prev = string(*sc.PreviousStatus)
	}
	_, err = tx.exec(`INSERT INTO aml_screenings (id, check_id, trigger, screened_at, status, previous_status, risk_level,
		match_count, changed, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		sc.ID, checkID, sc.Trigger, kyc.FormatTime(tx.now), string(sc.Status), prev, riskString(sc.RiskLevel),
		sc.MatchCount, boolInt(sc.Changed), string(detail))
	if err != nil {
		return fmt.Errorf("insert screening: %w", err)
	}
	return nil
}

// SetAMLMonitoring turns a check's monitoring on or off. Turning it on
// schedules the next re-screen a day after the last screening (at once if
// that is past); doing it twice changes nothing.
func (tx *Tx) SetAMLMonitoring(orgID string, env kyc.Environment, idParam string, on bool) (*kyc.AMLCheck, error) {
	c, err := findAMLCheck(context.Background(), tx.q, orgID, env, idParam)
	if err != nil {
		return nil, err
	}
	if c.MonitoringEnabled == on {
		return c, nil
	}
	if on && c.ErasedAt != nil {
		return nil, errAMLCheckErased(idParam)
	}
	c.MonitoringEnabled, c.NextScreenAt, c.UpdatedAt = on, nil, tx.now
	if on {
		next := c.LastScreenedAt.Add(MonitoringInterval)
		if next.Before(tx.now) {
			next = tx.now
		}
		c.NextScreenAt = &next
	}
	if _, err := tx.exec(`UPDATE aml_checks SET monitoring = ?, next_screen_at = ?, updated_at = ? WHERE id = ?`,
		boolInt(on), timeOrNil(c.NextScreenAt), kyc.FormatTime(tx.now), c.ID); err != nil {
		return nil, fmt.Errorf("set monitoring: %w", err)
	}
	action := "aml_check.monitoring_off"
	if on {
		action = "aml_check.monitoring_on"
	}
	if err := tx.auditChange(c.OrganizationID, c.Environment, "aml_check", c.ID, action, nil, "", ""); err != nil {
		return nil, err
	}
	return c, nil
}

// FindAMLCheck looks a check up by internal or public id: NOT_FOUND outside
// the organization, wrong_environment in its other environment.
func (s *Store) FindAMLCheck(ctx context.Context, orgID string, env kyc.Environment, idParam string) (*kyc.AMLCheck, error) {
	return findAMLCheck(ctx, readPool{s.readStmts}, orgID, env, idParam)
}

func findAMLCheck(ctx context.Context, q queryer, orgID string, env kyc.Environment, idParam string) (*kyc.AMLCheck, error) {
	col, id, err := idColumn("aml_", idParam, "AML check")
	if err != nil {
		return nil, err
	}
	c, err := scanAMLCheck(q.QueryRowContext(ctx, `SELECT `+amlColumns+` FROM aml_checks
		WHERE `+col+` = ? AND organization_id = ?`, id, orgID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "AML check %s not found.", idParam)
	}
	if err != nil {
		return nil, fmt.Errorf("find aml check: %w", err)
	}
	if c.Environment != env {
		return nil, wrongEnvironment("AML check", idParam, c.Environment, env)
	}
	return c, nil
}

// FindAMLChecks returns one page of the organization's checks in env,
// newest first, and the total matching the filter.
func (s *Store) FindAMLChecks(ctx context.Context, orgID string, env kyc.Environment, f kyc.AMLCheckFilter) ([]*kyc.AMLCheck, int, error) {
	where := `organization_id = ? AND environment = ?`
	args := []any{orgID, string(env)}
	if f.Status != "" {
		where += ` AND status = ?`
		args = append(args, string(f.Status))
	}
	if f.ReviewStatus != "" {
		where += ` AND review_status = ?`
		args = append(args, string(f.ReviewStatus))
		if f.ReviewStatus == kyc.AMLReviewPending {
			// An erased (sandbox) check has no match left to review.
			where += ` AND erased_at IS NULL`
		}
	}
	order := "id DESC"
	if f.OldestFirst {
		order = "id"
	}
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM aml_checks WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count aml checks: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+amlColumns+` FROM aml_checks WHERE `+where+`
		ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, f.Size, (f.Page-1)*f.Size)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find aml checks: %w", err)
	}
	defer rows.Close()
	list := make([]*kyc.AMLCheck, 0, f.Size)
	for rows.Next() {
		c, err := scanAMLCheck(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("scan aml check: %w", err)
		}
		list = append(list, c)
	}
	return list, total, rows.Err()
}

// DueAMLChecks returns up to limit monitored checks whose re-screen is due
// at now, the longest-waiting first, across all organizations.
func (s *Store) DueAMLChecks(ctx context.Context, now time.Time, limit int) ([]*kyc.AMLCheck, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+amlColumns+` FROM aml_checks
		WHERE next_screen_at IS NOT NULL AND next_screen_at <= ? ORDER BY next_screen_at LIMIT ?`, kyc.FormatTime(now), limit)
	if err != nil {
		return nil, fmt.Errorf("find due aml checks: %w", err)
	}
	defer rows.Close()
	var list []*kyc.AMLCheck
	for rows.Next() {
		c, err := scanAMLCheck(rows)
		if err != nil {
			return nil, fmt.Errorf("scan aml check: %w", err)
		}
		list = append(list, c)
	}
	return list, rows.Err()
}

// FindScreenings returns a check's monitoring history, oldest first.
func (s *Store) FindScreenings(ctx context.Context, checkID string) ([]kyc.Screening, error) {
	return findScreenings(ctx, readPool{s.readStmts}, checkID)
}

// FindScreenings is Store.FindScreenings inside the write transaction.
func (tx *Tx) FindScreenings(checkID string) ([]kyc.Screening, error) {
	return findScreenings(context.Background(), tx.q, checkID)
}

func findScreenings(ctx context.Context, q queryer, checkID string) ([]kyc.Screening, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, trigger, screened_at, status, previous_status, risk_level,
		match_count, changed, detail, erased_at FROM aml_screenings WHERE check_id = ? ORDER BY id`, checkID)
	if err != nil {
		return nil, fmt.Errorf("find screenings: %w", err)
	}
	defer rows.Close()
	out := []kyc.Screening{}
	for rows.Next() {
		var sc kyc.Screening
		var at, status, detail string
		var prev, risk, erased sql.NullString
		var changed int
		if err := rows.Scan(&sc.ID, &sc.Trigger, &at, &status, &prev, &risk, &sc.MatchCount, &changed, &detail, &erased); err != nil {
			return nil, fmt.Errorf("scan screening: %w", err)
		}
		sc.ErasedAt = parseTimePtr(erased)
		sc.ScreenedAt, sc.Status, sc.Changed = parseTime(at), kyc.AMLStatus(status), changed == 1
		if prev.Valid {
			p := kyc.AMLStatus(prev.String)
			sc.PreviousStatus = &p
		}
		if risk.Valid {
			r := kyc.RiskLevel(risk.String)
			sc.RiskLevel = &r
		}
		var d struct {
			NewMatches, RemovedMatches, ListVersions []string
			ChangedEntities                          []kyc.EntityChange
		}
		if err := json.Unmarshal([]byte(detail), &d); err != nil {
			return nil, fmt.Errorf("decode screening: %w", err)
		}
		sc.NewMatches, sc.RemovedMatches, sc.ListVersions = d.NewMatches, d.RemovedMatches, d.ListVersions
		sc.ChangedEntities = d.ChangedEntities
		out = append(out, sc)
	}
	return out, rows.Err()
}

func scanAMLCheck(row scanner) (*kyc.AMLCheck, error) {
	var c kyc.AMLCheck
	var env, status, results, screened, created, updated string
	var dob, country, risk, next, resolved, erased sql.NullString
	var monitoring int
	var review string
	if err := row.Scan(&c.ID, &c.PublicID, &c.OrganizationID, &env, &c.FirstName, &c.LastName, &dob, &country, &monitoring,
		&status, &risk, &c.MatchCount, &c.Threshold, &results, &screened, &next, &created, &updated, &review, &resolved, &erased); err != nil {
		return nil, err
	}
	c.ErasedAt = parseTimePtr(erased)
	c.ReviewStatus, c.ResolvedAt = kyc.AMLReviewStatus(review), parseTimePtr(resolved)
	c.Environment, c.Status, c.MonitoringEnabled = kyc.Environment(env), kyc.AMLStatus(status), monitoring == 1
	c.DOB, c.Country = ptrString(dob), ptrString(country)
	if risk.Valid {
		r := kyc.RiskLevel(risk.String)
		c.RiskLevel = &r
	}
	if err := json.Unmarshal([]byte(results), &c.Results); err != nil {
		return nil, fmt.Errorf("decode results: %w", err)
	}
	kyc.AssignMatchIDs(c.Results) // results stored before match ids existed
	c.LastScreenedAt, c.CreatedAt, c.UpdatedAt = parseTime(screened), parseTime(created), parseTime(updated)
	if next.Valid {
		t := parseTime(next.String)
		c.NextScreenAt = &t
	}
	return &c, nil
}

func riskString(r *kyc.RiskLevel) any {
	if r == nil {
		return nil
	}
	return string(*r)
}

func timeOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return kyc.FormatTime(*t)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// encodeResults is the stored form of list results: the decisions the
// readers attach to matches live in aml_match_decisions, not here.
func encodeResults(results []kyc.ListResult) (string, error) {
	clean := make([]kyc.ListResult, len(results))
	for i, r := range results {
		clean[i] = r
		if len(r.Matches) > 0 {
			clean[i].Matches = make([]kyc.MatchRecord, len(r.Matches))
			for j, m := range r.Matches {
				m.Review = nil
				clean[i].Matches[j] = m
			}
		}
	}
	b, err := json.Marshal(clean)
	if err != nil {
		return "", fmt.Errorf("encode results: %w", err)
	}
	return string(b), nil
}
