-- The current schema, generated from migrations/ by `go test ./store -run TestSchema -update`.
-- Read it; change the schema with a new numbered migration.
-- PRAGMA user_version = 2

CREATE TABLE api_keys (
  id              TEXT PRIMARY KEY,          -- the <ulid> part of svc_test_<ulid>.<secret>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  tier            TEXT NOT NULL CHECK (tier IN ('free', 'starter', 'pro')),
  rpm_override    INTEGER CHECK (rpm_override >= 0), -- NULL: the tier's limit; 0: unlimited
  name            TEXT NOT NULL DEFAULT '',
  secret_hash     BLOB NOT NULL,             -- SHA-256 of the secret part
  created_at      TEXT NOT NULL,
  revoked_at      TEXT
) STRICT;

CREATE TABLE applicants (
  id              TEXT PRIMARY KEY,          -- app_<ulid>
  public_id       TEXT NOT NULL UNIQUE,      -- app_<12 base32>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  first_name      TEXT NOT NULL,
  last_name       TEXT NOT NULL,
  email           TEXT,
  phone           TEXT,
  dob             TEXT,
  country         TEXT,
  external_ref    TEXT,
  metadata        TEXT NOT NULL DEFAULT '{}', -- JSON object
  status          TEXT NOT NULL CHECK (status IN ('active', 'archived')),
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  archived_at     TEXT
) STRICT;

CREATE TABLE idempotency_keys (
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  key             TEXT NOT NULL,
  request_hash    BLOB NOT NULL,             -- SHA-256 of method, path and canonical body
  status_code     INTEGER NOT NULL,
  response_body   BLOB NOT NULL,
  created_at      TEXT NOT NULL,
  expires_at      TEXT NOT NULL,
  PRIMARY KEY (organization_id, environment, key)
) STRICT, WITHOUT ROWID;

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

CREATE TABLE organizations (
  id            TEXT PRIMARY KEY,            -- org_<ulid>
  name          TEXT NOT NULL,
  contact_email TEXT,
  created_at    TEXT NOT NULL
) STRICT;

CREATE INDEX api_keys_organization_id_idx ON api_keys (organization_id);

CREATE UNIQUE INDEX applicants_org_env_external_ref_idx
  ON applicants (organization_id, environment, external_ref) WHERE external_ref IS NOT NULL;

CREATE INDEX applicants_org_env_id_idx ON applicants (organization_id, environment, id);

CREATE INDEX applicants_org_env_status_id_idx ON applicants (organization_id, environment, status, id);

CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);

CREATE INDEX jobs_state_run_at_idx ON jobs (state, run_at);

