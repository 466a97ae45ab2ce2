-- As SQLite's 0027 (read its comments): the personal data lifecycle.
ALTER TABLE applicants ADD COLUMN erased_at TEXT COLLATE "C";
ALTER TABLE applicants ADD COLUMN erasure_scheduled_at TEXT COLLATE "C";
ALTER TABLE applicants ADD COLUMN legal_hold_reason TEXT;
ALTER TABLE applicants ADD COLUMN legal_hold_at TEXT COLLATE "C";

CREATE TABLE erasures (
  id              TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  applicant_id    TEXT COLLATE "C" NOT NULL UNIQUE REFERENCES applicants (id),
  rule            TEXT COLLATE "C" NOT NULL,
  actor_type      TEXT COLLATE "C" NOT NULL,
  actor_id        TEXT COLLATE "C",
  reason          TEXT,
  erased_at       TEXT COLLATE "C" NOT NULL,
  receipt         TEXT NOT NULL
);

CREATE INDEX erasures_org_env_idx ON erasures (organization_id, environment, erased_at);
CREATE INDEX applicants_erasure_due_idx ON applicants (erasure_scheduled_at)
  WHERE erasure_scheduled_at IS NOT NULL AND erased_at IS NULL;

-- PostgreSQL has no file next to the database: the per-applicant keys are
-- a table here, deleted in the erasure's own transaction. Backups of this
-- database are the operator's (README "Personal data").
CREATE TABLE subject_keys (
  applicant_id TEXT COLLATE "C" PRIMARY KEY,
  secret       BYTEA NOT NULL,
  created_at   TEXT COLLATE "C" NOT NULL
);

-- SQLite's key_store names its <db>.keys; PostgreSQL keeps the keys in
-- subject_keys, so here the table only receives kycd migrate's copy.
CREATE TABLE key_store (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  store_id TEXT COLLATE "C" NOT NULL
);

-- Retention policy per organization (NULL: the default, kyc.DefaultRetention):
-- live personal data is kept retention_decided_years after the last decision
-- of a decided request, retention_inactive_days after the last activity when
-- nothing was decided (abandoned, expired, cancelled), and sandbox data
-- retention_sandbox_days after its last activity. The daily retention run
-- erases what is due.
ALTER TABLE organizations ADD COLUMN retention_decided_years INTEGER CHECK (retention_decided_years BETWEEN 1 AND 50);
ALTER TABLE organizations ADD COLUMN retention_inactive_days INTEGER CHECK (retention_inactive_days BETWEEN 1 AND 36500);
ALTER TABLE organizations ADD COLUMN retention_sandbox_days INTEGER CHECK (retention_sandbox_days BETWEEN 1 AND 36500);
