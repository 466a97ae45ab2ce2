-- Decided stays decided: a match decided false_positive is suppressed on
-- every later screening of the same subject (kyc.SubjectKey: normalised
-- first and last name, date of birth and country) in the same organization
-- and environment, while the listed entity's fingerprint is the one decided
-- on. A suppression ends when a person lifts it or a later decision on the
-- same subject and match replaces it; rows are never deleted, so the
-- history of what was suppressed, by whose decision, stays readable.
CREATE TABLE aml_suppressions (
  id              TEXT PRIMARY KEY,                      -- sup_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  subject_key     TEXT NOT NULL,                         -- kyc.SubjectKey (hex SHA-256)
  match_id        TEXT NOT NULL,                         -- mat_…: source + entity id
  match_key       TEXT NOT NULL,                         -- source/entityId, for people reading the table
  decision_id     TEXT NOT NULL REFERENCES aml_match_decisions (id) ON DELETE CASCADE,
  check_id        TEXT NOT NULL REFERENCES aml_checks (id) ON DELETE CASCADE,
  fingerprint     TEXT NOT NULL,                         -- kyc.ListedEntity.Fingerprint when decided
  created_at      TEXT NOT NULL,
  lifted_at       TEXT,
  lifted_by_type  TEXT,
  lifted_by_id    TEXT,
  lift_note       TEXT
) STRICT;

-- At most one active suppression per subject and match.
CREATE UNIQUE INDEX aml_suppressions_active_idx ON aml_suppressions (organization_id, environment, subject_key, match_id)
  WHERE lifted_at IS NULL;

-- Batch screening: POST /v1/aml-checks/batch stores every subject as a row
-- and a job (aml.batch) screens the pending rows in chunks, each chunk's
-- checks and row updates in one transaction, so a restart resumes with the
-- rows still pending and never screens a row twice.
CREATE TABLE aml_batches (
  id                TEXT PRIMARY KEY,                    -- amb_<ulid>
  organization_id   TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment       TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  status            TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed')),
  monitoring        INTEGER NOT NULL CHECK (monitoring IN (0, 1)),
  total             INTEGER NOT NULL,
  screened          INTEGER NOT NULL DEFAULT 0,
  failed            INTEGER NOT NULL DEFAULT 0,            -- rows refused at validation
  potential_matches INTEGER NOT NULL DEFAULT 0,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL,
  completed_at      TEXT
) STRICT;

CREATE INDEX aml_batches_org_idx ON aml_batches (organization_id, environment, id);

CREATE TABLE aml_batch_rows (
  batch_id  TEXT NOT NULL REFERENCES aml_batches (id) ON DELETE CASCADE,
  row_index INTEGER NOT NULL,
  subject   TEXT NOT NULL,                               -- JSON: kyc.AMLBatchSubject as sent
  status    TEXT NOT NULL CHECK (status IN ('pending', 'screened', 'failed')),
  check_id  TEXT REFERENCES aml_checks (id) ON DELETE SET NULL,
  errors    TEXT,                                        -- JSON: the row's field errors when failed
  PRIMARY KEY (batch_id, row_index)
) STRICT;

CREATE INDEX aml_batch_rows_status_idx ON aml_batch_rows (batch_id, status, row_index);
