-- AML cases: a confirmed match opens an investigation with an assignee, a
-- due date (the organization's review SLA), a timeline, an outcome and the
-- record of a suspicious-activity report (SAR) with a sealed copy of what
-- was filed. At most one case is open per AML check; a further confirmed
-- match on the check is an entry of the open case.
CREATE TABLE aml_cases (
  id              TEXT PRIMARY KEY,                      -- amc_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  check_id        TEXT NOT NULL REFERENCES aml_checks (id) ON DELETE CASCADE,
  match_id        TEXT NOT NULL,                         -- the confirmed match that opened it
  match_key       TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('open', 'closed')),
  outcome         TEXT CHECK (outcome IN ('relationship_refused', 'relationship_exited', 'relationship_continued_with_measures',
                    'reported', 'false_positive_after_investigation')),
  assignee_id     TEXT REFERENCES users (id) ON DELETE SET NULL,
  due_at          TEXT,
  opened_at       TEXT NOT NULL,
  closed_at       TEXT,
  updated_at      TEXT NOT NULL,
  sar_reference   TEXT,
  sar_filed_on    TEXT,                                  -- YYYY-MM-DD
  sar_recorded_at TEXT,
  sar_actor_type  TEXT,
  sar_actor_id    TEXT,
  sar_file_name   TEXT,
  sar_file_type   TEXT,
  sar_file_size   INTEGER,
  sar_file_sha256 TEXT,
  sar_file        BLOB,                                  -- sealed with the data key, AAD the case id
  sar_key_id      INTEGER,
  CHECK ((status = 'closed') = (outcome IS NOT NULL AND closed_at IS NOT NULL))
) STRICT;

CREATE UNIQUE INDEX aml_cases_open_idx ON aml_cases (check_id) WHERE status = 'open';
CREATE INDEX aml_cases_org_idx ON aml_cases (organization_id, environment, status, id);
CREATE INDEX aml_cases_assignee_idx ON aml_cases (organization_id, environment, assignee_id, id);

CREATE TABLE aml_case_entries (
  id         TEXT PRIMARY KEY,                           -- ace_<ulid>
  case_id    TEXT NOT NULL REFERENCES aml_cases (id) ON DELETE CASCADE,
  kind       TEXT NOT NULL CHECK (kind IN ('opened', 'confirmed', 'note', 'assigned', 'due', 'sar', 'closed', 'reopened')),
  text       TEXT NOT NULL,
  actor_type TEXT NOT NULL,
  actor_id   TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE INDEX aml_case_entries_case_idx ON aml_case_entries (case_id, id);

-- Escalation of KYC cases: a reviewer hands a case to a senior (a user
-- with the senior flag, or an admin) with a reason. An escalated case
-- leaves the ordinary queue until a senior de-escalates or decides it.
ALTER TABLE users ADD COLUMN senior INTEGER NOT NULL DEFAULT 0 CHECK (senior IN (0, 1));
ALTER TABLE kyc_requests ADD COLUMN escalated_at TEXT;
ALTER TABLE kyc_requests ADD COLUMN escalated_by TEXT REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE kyc_requests ADD COLUMN escalation_reason TEXT;
CREATE INDEX kyc_requests_org_env_escalated_idx ON kyc_requests (organization_id, environment, escalated_at, id);
