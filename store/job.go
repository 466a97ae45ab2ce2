package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"kycd/kyc"
)

// NewJob is a job to enqueue.
type NewJob struct {
	Kind        string
	Payload     []byte // JSON
	RunAt       time.Time
	MaxAttempts int
	// DedupeKey, when set, makes the enqueue a no-op if a job with the same
	// key exists in any state: a daily job is scheduled once, whatever the
	// number of restarts.
	DedupeKey string
}

// Job is a claimed job.
type Job struct {
	ID          int64
	Kind        string
	Payload     []byte
	Attempt     int // 1 for the first run; also the lease token
	MaxAttempts int
	DedupeKey   string
}

// EnqueueJob adds a job in the caller's transaction. It reports false when
// the dedupe key already exists.
func (tx *Tx) EnqueueJob(j NewJob) (bool, error) {
	if j.MaxAttempts < 1 {
		j.MaxAttempts = 1
	}
	if j.Payload == nil {
		j.Payload = []byte("{}")
	}
	runAt := j.RunAt
	if runAt.IsZero() || runAt.Before(tx.now) {
		runAt = tx.now
	}
	now := kyc.FormatTime(tx.now)
	res, err := tx.exec(`INSERT INTO jobs (kind, payload, state, run_at, max_attempts, dedupe_key, created_at, updated_at)
		VALUES (?, ?, 'pending', ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING`,
		j.Kind, j.Payload, kyc.FormatTime(runAt), j.MaxAttempts, nullString(j.DedupeKey), now, now)
	if err != nil {
		return false, fmt.Errorf("enqueue %s: %w", j.Kind, err)
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		tx.enqueued = true
	}
	return n > 0, nil
}

// JobsEnqueued delivers a signal after a commit that enqueued jobs, so the
// runner can start them at once instead of at its next poll.
func (s *Store) JobsEnqueued() <-chan struct{} { return s.jobSignal }

// ClaimJobs leases up to limit jobs of the given kinds that are due at now:
// pending jobs whose run_at has come, and running jobs whose lease expired
// (their worker died). Each claim counts as an attempt.
func (s *Store) ClaimJobs(ctx context.Context, now time.Time, lease time.Duration, limit int, kinds []string) ([]Job, error) {
	if limit <= 0 || len(kinds) == 0 {
		return nil, nil
	}
	var jobs []Job
	// On PostgreSQL a claim skips the fleet-wide write lock: it touches the
	// jobs table only, and FOR UPDATE SKIP LOCKED lets instances claim
	// side by side, each passing over the rows another is claiming.
	err := s.inTxNoFleetLock(ctx, func(tx *Tx) error {
		jobs = jobs[:0]
		args := []any{kyc.FormatTime(now.Add(lease)), kyc.FormatTime(now)}
		in := ""
		for i, k := range kinds {
			if i > 0 {
				in += ", "
			}
			in += "?"
			args = append(args, k)
		}
		args = append(args, limit)
		// A lease that ran out on the last attempt means the worker died or
		// the attempt overran: the job is dead, not run again, so a job
		// that kills the process cannot crash-loop it.
		// (Its own arguments, without the lease: PostgreSQL must know the
		// type of every parameter, and an unused one has none.)
		if _, err := tx.tx.Exec(`UPDATE jobs SET state = 'dead', updated_at = ?1,
				last_error = 'the lease ran out on the last attempt: the worker died or the attempt overran its lease'
			WHERE state = 'running' AND run_at <= ?1 AND attempts >= max_attempts AND kind IN (`+in+`)`,
			args[1:len(args)-1]...); err != nil {
			return fmt.Errorf("expire jobs: %w", err)
		}
		rows, err := tx.tx.Query(`UPDATE jobs SET state = 'running', run_at = ?1, attempts = attempts + 1, updated_at = ?2
			WHERE id IN (SELECT id FROM jobs WHERE state IN ('pending', 'running') AND run_at <= ?2 AND attempts < max_attempts
				AND kind IN (`+in+`) ORDER BY run_at, id LIMIT ?`+tx.eng.skipLocked()+`)
			RETURNING id, kind, payload, attempts, max_attempts, coalesce(dedupe_key, '')`, args...)
		if err != nil {
			return fmt.Errorf("claim jobs: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var j Job
			if err := rows.Scan(&j.ID, &j.Kind, &j.Payload, &j.Attempt, &j.MaxAttempts, &j.DedupeKey); err != nil {
				return err
			}
			jobs = append(jobs, j)
		}
		return rows.Err()
	})
	return jobs, err
}

// ErrLeaseLost means the job was claimed again by another worker after this
// one's lease ran out; the outcome of the old attempt is discarded.
var ErrLeaseLost = errors.New("store: job lease lost")

// FinishJob records a successful run. Jobs with a dedupe key are kept as
// done, so that the key keeps preventing duplicates; others are deleted.
func (tx *Tx) FinishJob(j Job) error {
	var res sql.Result
	var err error
	if j.DedupeKey != "" {
		res, err = tx.exec(`UPDATE jobs SET state = 'done', last_error = NULL, updated_at = ? WHERE id = ? AND attempts = ? AND state = 'running'`,
			kyc.FormatTime(tx.now), j.ID, j.Attempt)
	} else {
		res, err = tx.exec(`DELETE FROM jobs WHERE id = ? AND attempts = ? AND state = 'running'`, j.ID, j.Attempt)
	}
	return leaseResult(res, err)
}

// RetryJob reschedules a failed attempt at runAt, or marks the job dead when
// dead is set (its attempts are used up or the failure is permanent).
func (tx *Tx) RetryJob(j Job, runAt time.Time, dead bool, errText string) error {
	state := "pending"
	if dead {
		state = "dead"
	}
	res, err := tx.exec(`UPDATE jobs SET state = ?, run_at = ?, last_error = ?, updated_at = ? WHERE id = ? AND attempts = ? AND state = 'running'`,
		state, kyc.FormatTime(runAt), errText, kyc.FormatTime(tx.now), j.ID, j.Attempt)
	return leaseResult(res, err)
}

func leaseResult(res sql.Result, err error) error {
	if err != nil {
		return fmt.Errorf("update job: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// ReleaseJob gives back a claimed job without using up its attempt, for a
// run cut short by shutdown: it is due again at once.
func (tx *Tx) ReleaseJob(j Job) error { return tx.ReleaseJobAt(j, tx.now) }

// ReleaseJobAt gives back a claimed job without using up its attempt, due
// again at at (a job that could not start yet, e.g. its endpoint is busy).
func (tx *Tx) ReleaseJobAt(j Job, at time.Time) error {
	res, err := tx.exec(`UPDATE jobs SET state = 'pending', attempts = attempts - 1, run_at = ?, updated_at = ?
		WHERE id = ? AND attempts = ? AND state = 'running'`, kyc.FormatTime(at), kyc.FormatTime(tx.now), j.ID, j.Attempt)
	return leaseResult(res, err)
}

// MakeJobsDue makes every pending job of kind due now (a deferred or
// backed-off one included) and returns how many it moved.
func (tx *Tx) MakeJobsDue(kind string) (int, error) {
	now := kyc.FormatTime(tx.now)
	res, err := tx.exec(`UPDATE jobs SET run_at = ?, updated_at = ? WHERE kind = ? AND state = 'pending' AND run_at > ?`, now, now, kind, now)
	if err != nil {
		return 0, fmt.Errorf("make jobs due: %w", err)
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		tx.enqueued = true // wake the runner
	}
	return int(n), nil
}

// CountJobs counts the jobs of kind that are pending or running, and of
// those the ones due now or running.
func (tx *Tx) CountJobs(kind string) (waiting, due int, err error) {
	err = tx.queryRow(`SELECT count(*), coalesce(sum(CASE WHEN state = 'running' OR run_at <= ? THEN 1 ELSE 0 END), 0)
		FROM jobs WHERE kind = ? AND state IN ('pending', 'running')`, kyc.FormatTime(tx.now), kind).Scan(&waiting, &due)
	if err != nil {
		return 0, 0, fmt.Errorf("count jobs: %w", err)
	}
	return waiting, due, nil
}

// JobInfo is a job as the operator sees it.
type JobInfo struct {
	ID          int64
	Kind        string
	State       string
	RunAt       time.Time
	Attempts    int
	MaxAttempts int
	LastError   string
	DedupeKey   string
	UpdatedAt   time.Time // when it last changed state: for a done or dead job, when it ended
}

// FindJobs lists jobs of a kind in a state, by id; an empty kind or state
// matches all.
func (s *Store) FindJobs(ctx context.Context, kind, state string) ([]JobInfo, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, kind, state, run_at, attempts, max_attempts, coalesce(last_error, ''), coalesce(dedupe_key, ''),
		updated_at FROM jobs WHERE (?1 = '' OR kind = ?1) AND (?2 = '' OR state = ?2) ORDER BY id`, kind, state)
	if err != nil {
		return nil, fmt.Errorf("find jobs: %w", err)
	}
	defer rows.Close()
	var out []JobInfo
	for rows.Next() {
		var j JobInfo
		var runAt, updated string
		if err := rows.Scan(&j.ID, &j.Kind, &j.State, &runAt, &j.Attempts, &j.MaxAttempts, &j.LastError, &j.DedupeKey, &updated); err != nil {
			return nil, err
		}
		j.RunAt, j.UpdatedAt = parseTime(runAt), parseTime(updated)
		out = append(out, j)
	}
	return out, rows.Err()
}

// PurgeFinishedJobs deletes done jobs (kept only for their dedupe keys)
// finished more than age ago, and returns how many.
func (tx *Tx) PurgeFinishedJobs(age time.Duration) (int, error) {
	res, err := tx.exec(`DELETE FROM jobs WHERE state = 'done' AND updated_at < ?`, kyc.FormatTime(tx.now.Add(-age)))
	if err != nil {
		return 0, fmt.Errorf("purge jobs: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}
