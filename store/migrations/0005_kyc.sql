-- KYC requests, their timeline, captured images and the audit log.

CREATE TABLE kyc_requests (
  id                    TEXT PRIMARY KEY,      -- kyc_<ulid>
  public_id             TEXT NOT NULL UNIQUE,  -- kyc_<12 base32>
  organization_id       TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment           TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  applicant_id          TEXT NOT NULL REFERENCES applicants (id),
  status                TEXT NOT NULL CHECK (status IN ('link_generated', 'in_progress', 'submitted', 'processing',
                          'approved', 'rejected', 'awaiting_review', 'expired', 'cancelled', 'failed')),
  decision              TEXT NOT NULL CHECK (decision IN ('pending', 'approved', 'rejected', 'none')),
  decision_reason       TEXT,
  risk_score            REAL,
  workflow_type         TEXT NOT NULL,
  callback_url          TEXT,
  redirect_url          TEXT,
  external_ref          TEXT,
  metadata              TEXT NOT NULL DEFAULT '{}',
  portal_token_hash     BLOB NOT NULL UNIQUE,  -- SHA-256 of the link's token; the token itself is never stored
  portal_expires_at     TEXT NOT NULL,
  automation_decision   TEXT,
  automation_confidence REAL,
  processing_result     TEXT,                  -- JSON
  screenings            TEXT,                  -- JSON array of AML list results; NULL until screened
  reviewer_note         TEXT,
  submitted_at          TEXT,
  decided_at            TEXT,
  created_at            TEXT NOT NULL,
  updated_at            TEXT NOT NULL
) STRICT;

CREATE INDEX kyc_requests_org_env_id_idx ON kyc_requests (organization_id, environment, id);
CREATE INDEX kyc_requests_org_env_status_id_idx ON kyc_requests (organization_id, environment, status, id);
CREATE INDEX kyc_requests_applicant_idx ON kyc_requests (applicant_id);

-- The timeline: one row per transition, never updated.
CREATE TABLE kyc_events (
  id          TEXT PRIMARY KEY,                -- kte_<ulid>
  request_id  TEXT NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE,
  type        TEXT NOT NULL,
  from_status TEXT,
  to_status   TEXT NOT NULL,
  decision    TEXT NOT NULL,
  actor_type  TEXT NOT NULL CHECK (actor_type IN ('api_key', 'applicant', 'system', 'reviewer')),
  actor_id    TEXT,
  reason      TEXT,
  created_at  TEXT NOT NULL
) STRICT;

CREATE INDEX kyc_events_request_idx ON kyc_events (request_id, id);
CREATE TRIGGER kyc_events_no_update BEFORE UPDATE ON kyc_events BEGIN SELECT RAISE(ABORT, 'kyc_events is append-only'); END;

-- Captured images: re-encoded (metadata stripped) and stored in the file.
CREATE TABLE kyc_captures (
  id            TEXT PRIMARY KEY,              -- cap_<ulid>
  request_id    TEXT NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE,
  kind          TEXT NOT NULL CHECK (kind IN ('document', 'selfie')),
  side          TEXT CHECK (side IN ('front', 'back')),
  document_type TEXT,
  country       TEXT,
  content_type  TEXT NOT NULL,
  size          INTEGER NOT NULL,
  width         INTEGER NOT NULL,
  height        INTEGER NOT NULL,
  sha256        TEXT NOT NULL,
  source_sha256 TEXT NOT NULL,
  method        TEXT NOT NULL CHECK (method IN ('camera', 'upload')),
  user_agent    TEXT NOT NULL,
  ip            TEXT NOT NULL,
  meta          TEXT NOT NULL DEFAULT '{}',
  data          BLOB NOT NULL,
  captured_at   TEXT NOT NULL
) STRICT;

CREATE INDEX kyc_captures_request_idx ON kyc_captures (request_id, kind, id);
CREATE INDEX kyc_captures_sha_idx ON kyc_captures (source_sha256);

-- Live decisions are final and audit-tracked: every live transition is
-- also written here. Rows are never changed or deleted.
CREATE TABLE audit_log (
  id              INTEGER PRIMARY KEY,
  organization_id TEXT NOT NULL,
  environment     TEXT NOT NULL,
  resource_type   TEXT NOT NULL,
  resource_id     TEXT NOT NULL,
  action          TEXT NOT NULL,
  actor_type      TEXT NOT NULL,
  actor_id        TEXT,
  from_status     TEXT,
  to_status       TEXT,
  reason          TEXT,
  created_at      TEXT NOT NULL
) STRICT;

CREATE INDEX audit_log_resource_idx ON audit_log (resource_id, id);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
