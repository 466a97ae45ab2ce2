-- PostgreSQL twin of ../0031_resubmission.sql.
ALTER TABLE kyc_requests DROP CONSTRAINT kyc_requests_status_check;
ALTER TABLE kyc_requests ADD CONSTRAINT kyc_requests_status_check CHECK (status IN ('link_generated', 'in_progress', 'submitted',
  'processing', 'approved', 'rejected', 'awaiting_review', 'expired', 'cancelled', 'failed', 'resubmission_requested'));

ALTER TABLE kyc_requests ADD COLUMN attempt BIGINT NOT NULL DEFAULT 1 CHECK (attempt >= 1);
ALTER TABLE kyc_requests ADD COLUMN overdue_at TEXT COLLATE "C";
ALTER TABLE kyc_captures ADD COLUMN attempt BIGINT NOT NULL DEFAULT 1 CHECK (attempt >= 1);
ALTER TABLE liveness_sessions ADD COLUMN attempt BIGINT NOT NULL DEFAULT 1 CHECK (attempt >= 1);
ALTER TABLE document_sessions ADD COLUMN attempt BIGINT NOT NULL DEFAULT 1 CHECK (attempt >= 1);

CREATE TABLE kyc_resubmissions (
  id                TEXT COLLATE "C" PRIMARY KEY,
  request_id        TEXT COLLATE "C" NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE DEFERRABLE,
  attempt           BIGINT NOT NULL CHECK (attempt >= 2),
  step              TEXT COLLATE "C" NOT NULL CHECK (step IN ('document_front', 'document_back', 'selfie', 'liveness')),
  message           TEXT NOT NULL,
  state             TEXT COLLATE "C" NOT NULL CHECK (state IN ('open', 'submitted', 'expired')),
  actor_type        TEXT COLLATE "C" NOT NULL,
  actor_id          TEXT COLLATE "C",
  prior_automation_decision TEXT COLLATE "C",
  prior_decision_reason     TEXT,
  prior_risk_score          DOUBLE PRECISION,
  prior_reason_codes        TEXT,
  expires_at        TEXT COLLATE "C" NOT NULL,
  created_at        TEXT COLLATE "C" NOT NULL,
  closed_at         TEXT COLLATE "C",
  UNIQUE (request_id, attempt)
);

CREATE INDEX kyc_requests_overdue_idx ON kyc_requests (organization_id, environment, status, overdue_at, submitted_at);
