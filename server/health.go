package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// ReplicaStatus is the state of one replication target, reported by
// Options.Replication for /readyz and /metrics. Both are public: URL and
// Error must carry no credentials (user info and query strings are
// stripped from URL anyway).
type ReplicaStatus struct {
	URL      string        // where the replica is, e.g. s3://bucket/kycd
	LastSync time.Time     // the last successful sync; zero before the first
	Lag      time.Duration // how far the replica is behind the database
	Error    string        // the last sync's error; empty when it succeeded
}

const (
	// dbProbeTimeout bounds the database check of /readyz: a write lock
	// that cannot be had within it (held by another process, a stalled
	// disk) makes kycd not ready.
	dbProbeTimeout = 2 * time.Second
	// jobsStaleAfter is how long the job runner may go without looking for
	// due jobs before /readyz says not ready. It looks every second, and
	// a claim waits at most the 10 s busy timeout for the write lock.
	jobsStaleAfter = 30 * time.Second
)

// handleHealth handles "GET /healthz": the process is up and serving HTTP.
// It checks nothing else on purpose: a liveness probe that failed on
// database trouble would get kycd restarted, which cures none of it (see
// /readyz for that).
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, health{Status: "ok", Version: s.version, Commit: s.commitOrNil(),
		Modified: s.buildModified, SchemaVersion: store.SchemaVersion()})
	return nil
}

// health is the body of /healthz: which kycd answers, so an operator (or
// a fleet's proxy) can see which version each instance runs mid-upgrade.
type health struct {
	Status        string  `json:"status"`
	Version       string  `json:"version"`
	Commit        *string `json:"commit"` // null when the build did not record one
	Modified      bool    `json:"modified"`
	SchemaVersion int     `json:"schemaVersion"` // the migrations this binary knows
}

func (s *Server) commitOrNil() *string {
	if s.buildCommit == "" {
		return nil
	}
	return &s.buildCommit
}

// readiness is the body of /readyz, 200 or 503 alike.
type readiness struct {
	Status string          `json:"status"` // ready or not_ready
	Checks readinessChecks `json:"checks"`
}

type readinessChecks struct {
	Database    checkResult      `json:"database"`
	Migrations  migrationsCheck  `json:"migrations"`
	Jobs        jobsCheck        `json:"jobs"`
	Lists       listsCheck       `json:"lists"`
	Replication replicationCheck `json:"replication"`
}

type checkResult struct {
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

type migrationsCheck struct {
	OK       bool   `json:"ok"`
	Version  int    `json:"version"`  // applied to the file
	Expected int    `json:"expected"` // known to this binary
	Detail   string `json:"detail"`
}

type jobsCheck struct {
	OK         bool    `json:"ok"`
	Detail     string  `json:"detail"`
	LastPollAt *string `json:"lastPollAt"`
}

type listsCheck struct {
	OK      bool     `json:"ok"`
	Missing []string `json:"missing"`
	Detail  string   `json:"detail"`
}

type replicationCheck struct {
	OK       bool          `json:"ok"`
	Enabled  bool          `json:"enabled"`
	Replicas []replicaJSON `json:"replicas"`
	Detail   string        `json:"detail"`
}

type replicaJSON struct {
	URL        string  `json:"url"`
	LastSyncAt *string `json:"lastSyncAt"`
	LagSeconds float64 `json:"lagSeconds"`
	Error      *string `json:"error"`
}

// handleReady handles "GET /readyz": 200 when kycd can take traffic, 503
// when the database cannot take a write transaction, its schema is not
// this binary's, or the job runner has stopped polling. Missing watch
// lists and replica errors are reported but do not make kycd not ready:
// live screening fails closed without lists, and replication catches up.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) error {
	c := readinessChecks{
		Database:    s.checkDatabase(r.Context()),
		Migrations:  migrationsCheck{Expected: store.SchemaVersion(), Detail: "Not checked: the database is unavailable."},
		Jobs:        s.checkJobs(),
		Lists:       s.checkLists(),
		Replication: s.checkReplication(),
	}
	if c.Database.OK {
		c.Migrations = s.checkMigrations(r.Context())
	}
	res, status := readiness{Status: "ready", Checks: c}, http.StatusOK
	if !c.Database.OK || !c.Migrations.OK || !c.Jobs.OK {
		res.Status, status = "not_ready", http.StatusServiceUnavailable
	}
	writeJSON(w, status, res)
	return nil
}

// checkDatabase reads, then runs an empty write transaction through the
// commit loop. Causes are logged, not shown: the endpoint is public.
func (s *Server) checkDatabase(ctx context.Context) checkResult {
	ctx, cancel := context.WithTimeout(ctx, dbProbeTimeout)
	defer cancel()
	// After a write failed on the disk, an empty transaction proves
	// nothing (it succeeds on a full disk): write and delete a row instead,
	// until that succeeds.
	failing := s.store.WritesFailing()
	var err error
	if failing {
		err = s.store.ProbeWrite(ctx)
	} else {
		err = s.store.PingWrite(ctx)
	}
	if err == nil {
		err = s.store.Ping(ctx)
	}
	switch {
	case err == nil && failing:
		return checkResult{OK: true, Detail: "A read and a write transaction ran; writes work again."}
	case err == nil:
		return checkResult{OK: true, Detail: "A read and a write transaction ran."}
	case errors.Is(err, store.ErrStorage):
		s.log.Error("readiness: writes fail on the disk", "err", err)
		return checkResult{Detail: "Writes fail: the disk under the database is full or failing; the log has the cause."}
	case errors.Is(err, store.ErrClosed):
		return checkResult{Detail: "The database is closed: kycd is shutting down."}
	case errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("readiness: database probe timed out", "timeout", dbProbeTimeout.String())
		return checkResult{Detail: fmt.Sprintf("No write transaction within %s: the database is locked or the disk is slow.", dbProbeTimeout)}
	}
	s.log.Error("readiness: database probe failed", "err", err)
	return checkResult{Detail: "The database cannot be read or written; the log has the cause."}
}

func (s *Server) checkMigrations(ctx context.Context) migrationsCheck {
	m := migrationsCheck{Expected: store.SchemaVersion()}
	v, err := s.store.AppliedSchemaVersion(ctx)
	switch {
	case err != nil:
		s.log.Error("readiness: read schema version", "err", err)
		m.Detail = "The schema version cannot be read."
	case v != m.Expected:
		m.Version = v
		m.Detail = fmt.Sprintf("The database has schema version %d but this kycd expects %d: a newer kycd has migrated it; upgrade this one.", v, m.Expected)
	default:
		m.OK, m.Version, m.Detail = true, v, "Every migration is applied."
	}
	return m
}

func (s *Server) checkJobs() jobsCheck {
	if s.jobsLastPoll == nil {
		return jobsCheck{OK: true, Detail: "No job runner is attached to this server; not checked."}
	}
	last := s.jobsLastPoll()
	if last.IsZero() {
		return jobsCheck{Detail: "The job runner has not polled yet."}
	}
	at := kyc.FormatTime(last)
	ago := s.now().Sub(last)
	if ago > jobsStaleAfter {
		return jobsCheck{LastPollAt: &at, Detail: fmt.Sprintf("The job runner last polled %s ago (limit %s).", ago.Round(time.Second), jobsStaleAfter)}
	}
	return jobsCheck{OK: true, LastPollAt: &at, Detail: "The job runner is polling."}
}

func (s *Server) checkLists() listsCheck {
	l := listsCheck{OK: true, Missing: []string{}, Detail: "Every list kind has a loaded list."}
	for _, k := range s.aml.Screener().MissingKinds() {
		l.Missing = append(l.Missing, string(k))
	}
	if len(l.Missing) > 0 {
		l.OK = false
		l.Detail = "No list is loaded for " + strings.Join(l.Missing, ", ") +
			": live screening of these kinds fails closed until one is imported. This does not make kycd not ready."
	}
	return l
}

func (s *Server) checkReplication() replicationCheck {
	if s.replication == nil {
		return replicationCheck{OK: true, Replicas: []replicaJSON{}, Detail: "Replication is off."}
	}
	c := replicationCheck{OK: true, Enabled: true, Replicas: []replicaJSON{}, Detail: "Every replica is in sync."}
	for _, rs := range s.replication() {
		j := replicaJSON{URL: redactURL(rs.URL), LagSeconds: rs.Lag.Seconds()}
		if !rs.LastSync.IsZero() {
			t := kyc.FormatTime(rs.LastSync)
			j.LastSyncAt = &t
		}
		if rs.Error != "" {
			e := rs.Error
			j.Error = &e
			c.OK = false
			c.Detail = "A replica reports an error; this does not make kycd not ready."
		}
		c.Replicas = append(c.Replicas, j)
	}
	return c
}

// redactURL keeps a replica URL's scheme, host and path: user info and
// query strings may hold credentials.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	return u.String()
}
