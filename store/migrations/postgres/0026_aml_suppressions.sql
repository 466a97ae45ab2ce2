-- As SQLite's 0026: false_positive decisions carried to later screenings
-- of the same subject (see that file).
CREATE TABLE aml_suppressions (
  id              TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  subject_key     TEXT COLLATE "C" NOT NULL,
  match_id        TEXT COLLATE "C" NOT NULL,
  match_key       TEXT COLLATE "C" NOT NULL,
  decision_id     TEXT COLLATE "C" NOT NULL REFERENCES aml_match_decisions (id) ON DELETE CASCADE DEFERRABLE,
  check_id        TEXT COLLATE "C" NOT NULL REFERENCES aml_checks (id) ON DELETE CASCADE DEFERRABLE,
  fingerprint     TEXT COLLATE "C" NOT NULL,
  created_at      TEXT COLLATE "C" NOT NULL,
  lifted_at       TEXT COLLATE "C",
  lifted_by_type  TEXT COLLATE "C",
  lifted_by_id    TEXT COLLATE "C",
  lift_note       TEXT COLLATE "C"
);

CREATE UNIQUE INDEX aml_suppressions_active_idx ON aml_suppressions (organization_id, environment, subject_key, match_id)
  WHERE lifted_at IS NULL;

-- Batch screening (see SQLite's 0026).
CREATE TABLE aml_batches (
  id                TEXT COLLATE "C" PRIMARY KEY,
  organization_id   TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment       TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  status            TEXT COLLATE "C" NOT NULL CHECK (status IN ('queued', 'running', 'completed')),
  monitoring        BIGINT NOT NULL CHECK (monitoring IN (0, 1)),
  total             BIGINT NOT NULL,
  screened          BIGINT NOT NULL DEFAULT 0,
  failed            BIGINT NOT NULL DEFAULT 0,
  potential_matches BIGINT NOT NULL DEFAULT 0,
  created_at        TEXT COLLATE "C" NOT NULL,
  updated_at        TEXT COLLATE "C" NOT NULL,
  completed_at      TEXT COLLATE "C"
);

CREATE INDEX aml_batches_org_idx ON aml_batches (organization_id, environment, id);

CREATE TABLE aml_batch_rows (
  batch_id  TEXT COLLATE "C" NOT NULL REFERENCES aml_batches (id) ON DELETE CASCADE DEFERRABLE,
  row_index BIGINT NOT NULL,
  subject   TEXT COLLATE "C" NOT NULL,
  status    TEXT COLLATE "C" NOT NULL CHECK (status IN ('pending', 'screened', 'failed')),
  check_id  TEXT COLLATE "C" REFERENCES aml_checks (id) ON DELETE SET NULL DEFERRABLE,
  errors    TEXT COLLATE "C",
  PRIMARY KEY (batch_id, row_index)
);

CREATE INDEX aml_batch_rows_status_idx ON aml_batch_rows (batch_id, status, row_index);
