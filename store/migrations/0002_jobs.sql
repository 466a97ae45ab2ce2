-- The durable job table: webhook deliveries, link expiry, daily re-screens,
-- clean-ups. A job is enqueued in the same transaction as the change that
-- causes it (the outbox), so a committed change always gets its jobs and a
-- rolled-back one never does.
CREATE TABLE jobs (
  id           INTEGER PRIMARY KEY,
  kind         TEXT NOT NULL,
  payload      BLOB NOT NULL,                -- JSON, owned by the kind's handler
  state        TEXT NOT NULL CHECK (state IN ('pending', 'running', 'done', 'dead')),
  run_at       TEXT NOT NULL,                -- due time (pending) or lease expiry (running)
  attempts     INTEGER NOT NULL DEFAULT 0,   -- claims so far; also the lease token
  max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),
  last_error   TEXT,
  dedupe_key   TEXT UNIQUE,                  -- e.g. 'aml.rescreen/2026-11-22': scheduled once
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
) STRICT;

-- The runner's claim: due pending jobs and running jobs whose lease ran out.
CREATE INDEX jobs_state_run_at_idx ON jobs (state, run_at);
