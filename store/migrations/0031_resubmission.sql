-- Issue 27: a reviewer asks the applicant to redo one step of a request
-- awaiting review (a document side, the selfie or the camera check); and
-- the overdue event fires once per request.

-- The status resubmission_requested joins the request's CHECK. SQLite
-- cannot alter a CHECK, and rebuilding kyc_requests inside the
-- migration's transaction, where foreign keys stay on, would cascade its
-- DROP to every capture, event and session. Widening an IN list is one of
-- the edits SQLite documents as safe through writable_schema (every
-- existing row satisfies the wider rule; the file format is unchanged).
-- RESET reloads this connection's schema and turns writable_schema off;
-- the CREATE TABLE below bumps the schema cookie, so every other
-- connection reloads it too. store TestResubmissionStatusAllowed writes
-- the new status on a migrated file and runs integrity_check.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, '''expired'', ''cancelled'', ''failed''))',
  '''expired'', ''cancelled'', ''failed'', ''resubmission_requested''))')
  WHERE type = 'table' AND name = 'kyc_requests';
PRAGMA writable_schema = RESET;
-- A file whose CREATE TABLE text differs would be left unchanged in
-- silence; the CHECK below fails the migration (and rolls it back)
-- instead.
CREATE TEMP TABLE migration_0031_check (widened INTEGER NOT NULL CHECK (widened = 1));
INSERT INTO migration_0031_check SELECT count(*) FROM sqlite_schema
  WHERE type = 'table' AND name = 'kyc_requests' AND sql LIKE '%''failed'', ''resubmission_requested''))%';
DROP TABLE migration_0031_check;

-- The attempt the request's evidence is on: 1 for the first submission,
-- one more for each resubmission. Captures and camera sessions carry the
-- attempt they were made in: a retake replaces an image of its own
-- attempt only, so both attempts stay in the case.
ALTER TABLE kyc_requests ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1);
-- When svc.kyc.request.overdue fired: once per request, whatever restarts
-- or later SLA changes happen.
ALTER TABLE kyc_requests ADD COLUMN overdue_at TEXT;
ALTER TABLE kyc_captures ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1);
ALTER TABLE liveness_sessions ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1);
ALTER TABLE document_sessions ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1);

-- One row per resubmission asked for. The link is the request's own
-- portal link, re-issued (kyc_requests.portal_token_hash): the earlier
-- link stops working, and the new one stops at submission.
CREATE TABLE kyc_resubmissions (
  id                TEXT PRIMARY KEY,                          -- rsb_<ulid>
  request_id        TEXT NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE,
  attempt           INTEGER NOT NULL CHECK (attempt >= 2),     -- the attempt it opens
  step              TEXT NOT NULL CHECK (step IN ('document_front', 'document_back', 'selfie', 'liveness')),
  message           TEXT NOT NULL,                             -- the reviewer's words to the applicant
  state             TEXT NOT NULL CHECK (state IN ('open', 'submitted', 'expired')),
  actor_type        TEXT NOT NULL,
  actor_id          TEXT,
  -- The decision the earlier attempt had, kept beside it: the request's
  -- own columns then hold the new attempt's.
  prior_automation_decision TEXT,
  prior_decision_reason     TEXT,
  prior_risk_score          REAL,
  prior_reason_codes        TEXT,
  expires_at        TEXT NOT NULL,
  created_at        TEXT NOT NULL,
  closed_at         TEXT,                                      -- submitted or expired
  UNIQUE (request_id, attempt)
) STRICT;

-- The overdue job reads requests awaiting review not yet announced.
CREATE INDEX kyc_requests_overdue_idx ON kyc_requests (organization_id, environment, status, overdue_at, submitted_at);
