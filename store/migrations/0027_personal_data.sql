-- Personal data lifecycle (store/erasure.go, store/subjectkey.go).
-- Erasure: the applicant row stays as a tombstone (ids, dates, status),
-- its personal fields emptied; erased_at says it happened.
-- erasure_scheduled_at: an erasure was asked for while retention still
-- required the data; the retention job carries it out from that time.
-- legal_hold_reason: set by an admin, suspends every erasure until lifted.
ALTER TABLE applicants ADD COLUMN erased_at TEXT;
ALTER TABLE applicants ADD COLUMN erasure_scheduled_at TEXT;
ALTER TABLE applicants ADD COLUMN legal_hold_reason TEXT;
ALTER TABLE applicants ADD COLUMN legal_hold_at TEXT;

-- The erasure receipt, kept after the data is gone: what was erased
-- (ids, statuses, decisions, reason codes, SHA-256 of each erased image
-- and of the erased fields), when, by whom and under which rule.
CREATE TABLE erasures (
  id              TEXT PRIMARY KEY,          -- era_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  applicant_id    TEXT NOT NULL UNIQUE REFERENCES applicants (id),
  rule            TEXT NOT NULL,             -- data_subject_request, retention_…
  actor_type      TEXT NOT NULL,
  actor_id        TEXT,
  reason          TEXT,
  erased_at       TEXT NOT NULL,
  receipt         TEXT NOT NULL              -- JSON: kyc.ErasureReceipt
) STRICT;

CREATE INDEX erasures_org_env_idx ON erasures (organization_id, environment, erased_at);
CREATE INDEX applicants_erasure_due_idx ON applicants (erasure_scheduled_at)
  WHERE erasure_scheduled_at IS NOT NULL AND erased_at IS NULL;

-- On SQLite the per-applicant keys are NOT in this file: they live in the
-- key store next to it (<db>.keys, store/subjectkey.go), so that this
-- file, its WAL, its backups and Litestream replicas never hold them.

-- Which key store belongs to this database: the same id is in <db>.keys.
-- Open refuses a database whose key store is missing or another's
-- (ErrKeyStore) rather than serve data it can no longer open.
CREATE TABLE key_store (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  store_id TEXT NOT NULL
) STRICT;

-- Retention policy per organization (NULL: the default, kyc.DefaultRetention):
-- live personal data is kept retention_decided_years after the last decision
-- of a decided request, retention_inactive_days after the last activity when
-- nothing was decided (abandoned, expired, cancelled), and sandbox data
-- retention_sandbox_days after its last activity. The daily retention run
-- erases what is due.
ALTER TABLE organizations ADD COLUMN retention_decided_years INTEGER CHECK (retention_decided_years BETWEEN 1 AND 50);
ALTER TABLE organizations ADD COLUMN retention_inactive_days INTEGER CHECK (retention_inactive_days BETWEEN 1 AND 36500);
ALTER TABLE organizations ADD COLUMN retention_sandbox_days INTEGER CHECK (retention_sandbox_days BETWEEN 1 AND 36500);
