-- As SQLite's 0032 (read its comments): AML cases and KYC escalation.
CREATE TABLE aml_cases (
  id              TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  check_id        TEXT COLLATE "C" NOT NULL REFERENCES aml_checks (id) ON DELETE CASCADE DEFERRABLE,
  match_id        TEXT COLLATE "C" NOT NULL,
  match_key       TEXT COLLATE "C" NOT NULL,
  status          TEXT COLLATE "C" NOT NULL CHECK (status IN ('open', 'closed')),
  outcome         TEXT COLLATE "C" CHECK (outcome IN ('relationship_refused', 'relationship_exited', 'relationship_continued_with_measures',
                    'reported', 'false_positive_after_investigation')),
  assignee_id     TEXT COLLATE "C" REFERENCES users (id) ON DELETE SET NULL DEFERRABLE,
  due_at          TEXT COLLATE "C",
  opened_at       TEXT COLLATE "C" NOT NULL,
  closed_at       TEXT COLLATE "C",
  updated_at      TEXT COLLATE "C" NOT NULL,
  sar_reference   TEXT COLLATE "C",
  sar_filed_on    TEXT COLLATE "C",
  sar_recorded_at TEXT COLLATE "C",
  sar_actor_type  TEXT COLLATE "C",
  sar_actor_id    TEXT COLLATE "C",
  sar_file_name   TEXT COLLATE "C",
  sar_file_type   TEXT COLLATE "C",
  sar_file_size   BIGINT,
  sar_file_sha256 TEXT COLLATE "C",
  sar_file        BYTEA,
  sar_key_id      BIGINT,
  CHECK ((status = 'closed') = (outcome IS NOT NULL AND closed_at IS NOT NULL))
);

CREATE UNIQUE INDEX aml_cases_open_idx ON aml_cases (check_id) WHERE status = 'open';
CREATE INDEX aml_cases_org_idx ON aml_cases (organization_id, environment, status, id);
CREATE INDEX aml_cases_assignee_idx ON aml_cases (organization_id, environment, assignee_id, id);

CREATE TABLE aml_case_entries (
  id         TEXT COLLATE "C" PRIMARY KEY,
  case_id    TEXT COLLATE "C" NOT NULL REFERENCES aml_cases (id) ON DELETE CASCADE DEFERRABLE,
  kind       TEXT COLLATE "C" NOT NULL CHECK (kind IN ('opened', 'confirmed', 'note', 'assigned', 'due', 'sar', 'closed', 'reopened')),
  text       TEXT COLLATE "C" NOT NULL,
  actor_type TEXT COLLATE "C" NOT NULL,
  actor_id   TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL
);

CREATE INDEX aml_case_entries_case_idx ON aml_case_entries (case_id, id);

ALTER TABLE users ADD COLUMN senior BIGINT NOT NULL DEFAULT 0 CHECK (senior IN (0, 1));
ALTER TABLE kyc_requests ADD COLUMN escalated_at TEXT COLLATE "C";
ALTER TABLE kyc_requests ADD COLUMN escalated_by TEXT COLLATE "C" REFERENCES users (id) ON DELETE SET NULL DEFERRABLE;
ALTER TABLE kyc_requests ADD COLUMN escalation_reason TEXT COLLATE "C";
CREATE INDEX kyc_requests_org_env_escalated_idx ON kyc_requests (organization_id, environment, escalated_at, id);
