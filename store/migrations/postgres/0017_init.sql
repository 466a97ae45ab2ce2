-- PostgreSQL starts at schema version 17: this one file is the schema that
-- SQLite's migrations 0001 to 0017 build (no PostgreSQL installation of an
-- older version ever existed). From 0018 on, every migration is written
-- twice, once in store/migrations/ and once here, with the same number.
--
-- Types keep SQLite's, so that the store reads the same Go values from
-- either engine: integers for flags (0/1), text for times (kyc.TimeFormat,
-- fixed width, so text order is time order), bytea for blobs. Text is
-- COLLATE "C": byte order, as SQLite's BINARY collation, whatever locale
-- the database was created with, so ORDER BY id and time comparisons agree.
-- Foreign keys are DEFERRABLE (checked per statement, as SQLite's, unless a
-- transaction defers them): kycd migrate copies tables in any order.

-- kycd_refuse raises the error named by the trigger's argument: the
-- counterpart of SQLite's RAISE(ABORT, ...).
CREATE FUNCTION kycd_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TABLE organization_logos (
  sha256       TEXT COLLATE "C" PRIMARY KEY,
  content_type TEXT COLLATE "C" NOT NULL CHECK (content_type IN ('image/png', 'image/svg+xml')),
  width        BIGINT NOT NULL,
  height       BIGINT NOT NULL,
  data         BYTEA NOT NULL,
  created_at   TEXT COLLATE "C" NOT NULL
);

CREATE TABLE organizations (
  id            TEXT COLLATE "C" PRIMARY KEY,            -- org_<ulid>
  name          TEXT COLLATE "C" NOT NULL,
  contact_email TEXT COLLATE "C",
  created_at    TEXT COLLATE "C" NOT NULL
, aml_threshold DOUBLE PRECISION CHECK (aml_threshold > 0 AND aml_threshold <= 1), decision_policy TEXT COLLATE "C", four_eyes BIGINT NOT NULL DEFAULT 0 CHECK (four_eyes IN (0, 1)), display_name TEXT COLLATE "C", support_email TEXT COLLATE "C", privacy_url TEXT COLLATE "C", brand_color TEXT COLLATE "C", default_locale TEXT COLLATE "C", logo_sha256 TEXT COLLATE "C" REFERENCES organization_logos (sha256) DEFERRABLE, aml_kinds TEXT COLLATE "C");

CREATE TABLE data_keys (
  id         BIGINT PRIMARY KEY,
  wrapped    BYTEA NOT NULL,                    -- 32-byte key sealed by the master key, AAD 'kycd data key <id>'
  created_at TEXT COLLATE "C" NOT NULL,
  active     BIGINT NOT NULL DEFAULT 0 CHECK (active IN (0, 1)) -- the key new data is sealed with
);

CREATE TABLE api_keys (
  id              TEXT COLLATE "C" PRIMARY KEY,          -- the <ulid> part of svc_test_<ulid>.<secret>
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  tier            TEXT COLLATE "C" NOT NULL CHECK (tier IN ('free', 'starter', 'pro')),
  rpm_override    BIGINT CHECK (rpm_override >= 0), -- NULL: the tier's limit; 0: unlimited
  name            TEXT COLLATE "C" NOT NULL DEFAULT '',
  secret_hash     BYTEA NOT NULL,             -- SHA-256 of the secret part
  created_at      TEXT COLLATE "C" NOT NULL,
  revoked_at      TEXT COLLATE "C"
);

CREATE TABLE applicants (
  id              TEXT COLLATE "C" PRIMARY KEY,          -- app_<ulid>
  public_id       TEXT COLLATE "C" NOT NULL UNIQUE,      -- app_<12 base32>
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  first_name      TEXT COLLATE "C" NOT NULL,
  last_name       TEXT COLLATE "C" NOT NULL,
  email           TEXT COLLATE "C",
  phone           TEXT COLLATE "C",
  dob             TEXT COLLATE "C",
  country         TEXT COLLATE "C",
  external_ref    TEXT COLLATE "C",
  metadata        TEXT COLLATE "C" NOT NULL DEFAULT '{}', -- JSON object
  status          TEXT COLLATE "C" NOT NULL CHECK (status IN ('active', 'archived')),
  created_at      TEXT COLLATE "C" NOT NULL,
  updated_at      TEXT COLLATE "C" NOT NULL,
  archived_at     TEXT COLLATE "C"
);

CREATE TABLE kyc_requests (
  id                    TEXT COLLATE "C" PRIMARY KEY,      -- kyc_<ulid>
  public_id             TEXT COLLATE "C" NOT NULL UNIQUE,  -- kyc_<12 base32>
  organization_id       TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment           TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  applicant_id          TEXT COLLATE "C" NOT NULL REFERENCES applicants (id) DEFERRABLE,
  status                TEXT COLLATE "C" NOT NULL CHECK (status IN ('link_generated', 'in_progress', 'submitted', 'processing',
                          'approved', 'rejected', 'awaiting_review', 'expired', 'cancelled', 'failed')),
  decision              TEXT COLLATE "C" NOT NULL CHECK (decision IN ('pending', 'approved', 'rejected', 'none')),
  decision_reason       TEXT COLLATE "C",
  risk_score            DOUBLE PRECISION,
  workflow_type         TEXT COLLATE "C" NOT NULL,
  callback_url          TEXT COLLATE "C",
  redirect_url          TEXT COLLATE "C",
  external_ref          TEXT COLLATE "C",
  metadata              TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  portal_token_hash     BYTEA NOT NULL UNIQUE,  -- SHA-256 of the link's token; the token itself is never stored
  portal_expires_at     TEXT COLLATE "C" NOT NULL,
  automation_decision   TEXT COLLATE "C",
  automation_confidence DOUBLE PRECISION,
  processing_result     TEXT COLLATE "C",                  -- JSON
  screenings            TEXT COLLATE "C",                  -- JSON array of AML list results; NULL until screened
  reviewer_note         TEXT COLLATE "C",
  submitted_at          TEXT COLLATE "C",
  decided_at            TEXT COLLATE "C",
  created_at            TEXT COLLATE "C" NOT NULL,
  updated_at            TEXT COLLATE "C" NOT NULL
, document_data TEXT COLLATE "C", document_number TEXT COLLATE "C", pending_review TEXT COLLATE "C", review_reason_code TEXT COLLATE "C", document_key_id BIGINT REFERENCES data_keys (id) DEFERRABLE, locale TEXT COLLATE "C");

CREATE TABLE kyc_captures (
  id            TEXT COLLATE "C" PRIMARY KEY,              -- cap_<ulid>
  request_id    TEXT COLLATE "C" NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE DEFERRABLE,
  kind          TEXT COLLATE "C" NOT NULL CHECK (kind IN ('document', 'selfie')),
  side          TEXT COLLATE "C" CHECK (side IN ('front', 'back')),
  document_type TEXT COLLATE "C",
  country       TEXT COLLATE "C",
  content_type  TEXT COLLATE "C" NOT NULL,
  size          BIGINT NOT NULL,
  width         BIGINT NOT NULL,
  height        BIGINT NOT NULL,
  sha256        TEXT COLLATE "C" NOT NULL,
  source_sha256 TEXT COLLATE "C" NOT NULL,
  method        TEXT COLLATE "C" NOT NULL CHECK (method IN ('camera', 'upload')),
  user_agent    TEXT COLLATE "C" NOT NULL,
  ip            TEXT COLLATE "C" NOT NULL,
  meta          TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  data          BYTEA NOT NULL,
  captured_at   TEXT COLLATE "C" NOT NULL
, key_id BIGINT REFERENCES data_keys (id) DEFERRABLE, session_id TEXT COLLATE "C");

CREATE TABLE liveness_sessions (
  id                TEXT COLLATE "C" PRIMARY KEY,            -- lvs_<ulid>
  request_id        TEXT COLLATE "C" NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE DEFERRABLE,
  nonce_sha256      TEXT COLLATE "C" NOT NULL UNIQUE,        -- the page holds the nonce; only its hash is kept
  challenge         TEXT COLLATE "C" NOT NULL,               -- JSON array of movements
  status            TEXT COLLATE "C" NOT NULL CHECK (status IN ('open', 'passed', 'failed')),
  opened_at         TEXT COLLATE "C" NOT NULL,
  deadline_at       TEXT COLLATE "C" NOT NULL,
  received_at       TEXT COLLATE "C",                        -- when the frames arrived: the nonce is spent
  verdict           TEXT COLLATE "C",                        -- JSON: liveness.Verdict
  selfie_capture_id TEXT COLLATE "C" REFERENCES kyc_captures (id) ON DELETE SET NULL DEFERRABLE,
  user_agent        TEXT COLLATE "C" NOT NULL,
  ip                TEXT COLLATE "C" NOT NULL
);

ALTER TABLE kyc_captures ADD FOREIGN KEY (session_id) REFERENCES liveness_sessions (id) DEFERRABLE;

CREATE TABLE liveness_frames (
  id           TEXT COLLATE "C" PRIMARY KEY,                 -- lvf_<ulid>
  session_id   TEXT COLLATE "C" NOT NULL REFERENCES liveness_sessions (id) ON DELETE CASCADE DEFERRABLE,
  seq          BIGINT NOT NULL,                 -- capture order, from 0
  step         BIGINT NOT NULL,                 -- 0 looks straight, then the challenge's movements
  content_type TEXT COLLATE "C" NOT NULL,
  size         BIGINT NOT NULL,
  width        BIGINT NOT NULL,
  height       BIGINT NOT NULL,
  sha256       TEXT COLLATE "C" NOT NULL,
  key_id       BIGINT NOT NULL REFERENCES data_keys (id) DEFERRABLE,
  data         BYTEA NOT NULL,
  UNIQUE (session_id, seq)
);

CREATE TABLE kyc_events (
  id          TEXT COLLATE "C" PRIMARY KEY,                -- kte_<ulid>
  request_id  TEXT COLLATE "C" NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE DEFERRABLE,
  type        TEXT COLLATE "C" NOT NULL,
  from_status TEXT COLLATE "C",
  to_status   TEXT COLLATE "C" NOT NULL,
  decision    TEXT COLLATE "C" NOT NULL,
  actor_type  TEXT COLLATE "C" NOT NULL CHECK (actor_type IN ('api_key', 'applicant', 'system', 'reviewer')),
  actor_id    TEXT COLLATE "C",
  reason      TEXT COLLATE "C",
  created_at  TEXT COLLATE "C" NOT NULL
);

CREATE TABLE face_descriptors (
  id              TEXT COLLATE "C" PRIMARY KEY,            -- fd_<ulid>
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  applicant_id    TEXT COLLATE "C" NOT NULL REFERENCES applicants (id) DEFERRABLE,
  request_id      TEXT COLLATE "C" NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE DEFERRABLE,
  capture_id      TEXT COLLATE "C" NOT NULL UNIQUE REFERENCES kyc_captures (id) ON DELETE CASCADE DEFERRABLE,
  key_id          BIGINT NOT NULL REFERENCES data_keys (id) DEFERRABLE,
  descriptor      BYTEA NOT NULL,               -- 128 little-endian float32, sealed
  created_at      TEXT COLLATE "C" NOT NULL
);

CREATE TABLE aml_checks (
  id               TEXT COLLATE "C" PRIMARY KEY,         -- aml_<ulid>
  public_id        TEXT COLLATE "C" NOT NULL UNIQUE,     -- aml_<12 base32>
  organization_id  TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment      TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  first_name       TEXT COLLATE "C" NOT NULL,
  last_name        TEXT COLLATE "C" NOT NULL,
  dob              TEXT COLLATE "C",
  country          TEXT COLLATE "C",
  monitoring       BIGINT NOT NULL CHECK (monitoring IN (0, 1)),
  status           TEXT COLLATE "C" NOT NULL CHECK (status IN ('no_match', 'potential_match', 'failed')),
  risk_level       TEXT COLLATE "C" CHECK (risk_level IN ('low', 'medium', 'high')),
  match_count      BIGINT NOT NULL,
  threshold        DOUBLE PRECISION NOT NULL,
  results          TEXT COLLATE "C" NOT NULL,            -- JSON array of per-list results
  last_screened_at TEXT COLLATE "C" NOT NULL,
  next_screen_at   TEXT COLLATE "C",                     -- set while monitoring is on
  created_at       TEXT COLLATE "C" NOT NULL,
  updated_at       TEXT COLLATE "C" NOT NULL
);

CREATE TABLE aml_screenings (
  id              TEXT COLLATE "C" PRIMARY KEY,          -- ams_<ulid>
  check_id        TEXT COLLATE "C" NOT NULL REFERENCES aml_checks (id) ON DELETE CASCADE DEFERRABLE,
  trigger         TEXT COLLATE "C" NOT NULL CHECK (trigger IN ('initial', 'daily', 'list_update')),
  screened_at     TEXT COLLATE "C" NOT NULL,
  status          TEXT COLLATE "C" NOT NULL,
  previous_status TEXT COLLATE "C",
  risk_level      TEXT COLLATE "C",
  match_count     BIGINT NOT NULL,
  changed         BIGINT NOT NULL CHECK (changed IN (0, 1)),
  detail          TEXT COLLATE "C" NOT NULL              -- JSON: new/removed matches, list versions
);

CREATE TABLE audit_log (
  id              BIGINT PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL,
  environment     TEXT COLLATE "C" NOT NULL,
  resource_type   TEXT COLLATE "C" NOT NULL,
  resource_id     TEXT COLLATE "C" NOT NULL,
  action          TEXT COLLATE "C" NOT NULL,
  actor_type      TEXT COLLATE "C" NOT NULL,
  actor_id        TEXT COLLATE "C",
  from_status     TEXT COLLATE "C",
  to_status       TEXT COLLATE "C",
  reason          TEXT COLLATE "C",
  created_at      TEXT COLLATE "C" NOT NULL
, prev_hash TEXT COLLATE "C", content_hash TEXT COLLATE "C");

CREATE TABLE audit_head (
  id           BIGINT PRIMARY KEY CHECK (id = 1),
  mac_from     BIGINT NOT NULL,  -- first audit_log id whose content_hash is a MAC
  row_count    BIGINT NOT NULL,  -- the last audit_log id the head covers
  head_hash    TEXT COLLATE "C" NOT NULL,     -- that row's content_hash ('' until signed)
  signed_since TEXT COLLATE "C",              -- when the head was first signed
  signed_at    TEXT COLLATE "C",              -- when it was last signed
  mac          TEXT COLLATE "C"               -- hex HMAC-SHA256 of the head; NULL until signed
);

CREATE TABLE callback_secrets (
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  secret          BYTEA NOT NULL,             -- sealed whsec_… secret, AAD 'callback <org> <env>'
  previous_secret BYTEA,                      -- sealed; signs too until previous_secret_until when dual_sign
  previous_secret_until TEXT COLLATE "C",
  dual_sign       BIGINT NOT NULL DEFAULT 0 CHECK (dual_sign IN (0, 1)),
  created_at      TEXT COLLATE "C" NOT NULL,
  rotated_at      TEXT COLLATE "C",
  PRIMARY KEY (organization_id, environment)
);

CREATE TABLE email_outbox (
  id              BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  organization_id TEXT COLLATE "C" REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  to_address      TEXT COLLATE "C" NOT NULL,
  subject         TEXT COLLATE "C" NOT NULL,
  body            TEXT COLLATE "C" NOT NULL,
  created_at      TEXT COLLATE "C" NOT NULL,
  sent_at         TEXT COLLATE "C",
  error           TEXT COLLATE "C"
, html_body TEXT COLLATE "C", from_name TEXT COLLATE "C", reply_to TEXT COLLATE "C", logo_sha256 TEXT COLLATE "C" REFERENCES organization_logos (sha256) DEFERRABLE, body_key_id BIGINT REFERENCES data_keys (id) DEFERRABLE, expired_at TEXT COLLATE "C");

CREATE TABLE events (
  id              TEXT COLLATE "C" PRIMARY KEY,          -- kev_<ulid>
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  type            TEXT COLLATE "C" NOT NULL,             -- one of spec §6.2
  resource_id     TEXT COLLATE "C" NOT NULL,             -- kyc_…, aml_…, we_… (test events)
  payload         BYTEA NOT NULL,             -- the exact JSON body every delivery sends
  created_at      TEXT COLLATE "C" NOT NULL
);

CREATE TABLE webhook_endpoints (
  id              TEXT COLLATE "C" PRIMARY KEY,          -- we_<ulid>
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  url             TEXT COLLATE "C" NOT NULL,
  description     TEXT COLLATE "C" NOT NULL DEFAULT '',
  event_types     TEXT COLLATE "C" NOT NULL DEFAULT '[]', -- JSON array; empty = all types
  secret          BYTEA NOT NULL,             -- sealed (AES-256-GCM) whsec_… secret
  previous_secret BYTEA,                      -- sealed; also signed with until previous_secret_until
  previous_secret_until TEXT COLLATE "C",
  enabled         BIGINT NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  disabled_reason TEXT COLLATE "C",
  disabled_at     TEXT COLLATE "C",
  created_at      TEXT COLLATE "C" NOT NULL,
  updated_at      TEXT COLLATE "C" NOT NULL,
  deleted_at      TEXT COLLATE "C"                       -- soft delete: deliveries keep their history
, dual_sign BIGINT NOT NULL DEFAULT 0 CHECK (dual_sign IN (0, 1)));

CREATE TABLE webhook_deliveries (
  id              TEXT COLLATE "C" PRIMARY KEY,          -- whd_<ulid>
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  endpoint_id     TEXT COLLATE "C" REFERENCES webhook_endpoints (id) ON DELETE CASCADE DEFERRABLE, -- NULL: to callback_url
  callback_url    TEXT COLLATE "C",                      -- the request's callbackUrl; set exactly when endpoint_id is NULL
  event_id        TEXT COLLATE "C" NOT NULL REFERENCES events (id) ON DELETE CASCADE DEFERRABLE,
  event_type      TEXT COLLATE "C" NOT NULL,
  status          TEXT COLLATE "C" NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        BIGINT NOT NULL DEFAULT 0,
  last_status_code BIGINT,
  next_attempt_at TEXT COLLATE "C",
  delivered_at    TEXT COLLATE "C",
  created_at      TEXT COLLATE "C" NOT NULL,
  updated_at      TEXT COLLATE "C" NOT NULL,
  CHECK ((endpoint_id IS NULL) = (callback_url IS NOT NULL))
);

CREATE TABLE webhook_attempts (
  id               BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  delivery_id      TEXT COLLATE "C" NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE DEFERRABLE,
  attempt          BIGINT NOT NULL,
  request_headers  TEXT COLLATE "C" NOT NULL,            -- JSON object of the headers sent
  response_status  BIGINT,                  -- NULL: no HTTP response
  response_excerpt TEXT COLLATE "C" NOT NULL DEFAULT '', -- first 1 KiB of the response body
  -- 1: the receiver's address was not public (kycd serve
  -- --allow-private-webhooks), so its answer was not kept
  response_body_withheld BIGINT NOT NULL DEFAULT 0 CHECK (response_body_withheld IN (0, 1)),
  duration_ms      BIGINT NOT NULL,
  error            TEXT COLLATE "C" NOT NULL DEFAULT '',
  started_at       TEXT COLLATE "C" NOT NULL,
  next_retry_at    TEXT COLLATE "C"
);

CREATE TABLE idempotency_keys (
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  key             TEXT COLLATE "C" NOT NULL,
  request_hash    BYTEA NOT NULL,             -- SHA-256 of method, path and canonical body
  status_code     BIGINT NOT NULL,
  response_body   BYTEA NOT NULL,
  created_at      TEXT COLLATE "C" NOT NULL,
  expires_at      TEXT COLLATE "C" NOT NULL, response_key_id BIGINT REFERENCES data_keys (id) DEFERRABLE,
  PRIMARY KEY (organization_id, environment, key)
);

CREATE TABLE jobs (
  id           BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  kind         TEXT COLLATE "C" NOT NULL,
  payload      BYTEA NOT NULL,                -- JSON, owned by the kind's handler
  state        TEXT COLLATE "C" NOT NULL CHECK (state IN ('pending', 'running', 'done', 'dead')),
  run_at       TEXT COLLATE "C" NOT NULL,                -- due time (pending) or lease expiry (running)
  attempts     BIGINT NOT NULL DEFAULT 0,   -- claims so far; also the lease token
  max_attempts BIGINT NOT NULL CHECK (max_attempts >= 1),
  last_error   TEXT COLLATE "C",
  dedupe_key   TEXT COLLATE "C" UNIQUE,                  -- e.g. 'aml.rescreen/2026-11-22': scheduled once
  created_at   TEXT COLLATE "C" NOT NULL,
  updated_at   TEXT COLLATE "C" NOT NULL
);

CREATE TABLE list_versions (
  id           TEXT COLLATE "C" PRIMARY KEY,             -- lsv_<ulid>
  source       TEXT COLLATE "C" NOT NULL,                -- operator's name for the list, e.g. ofac-sdn
  kind         TEXT COLLATE "C" NOT NULL CHECK (kind IN ('sanctions', 'pep', 'adverse_media')),
  format       TEXT COLLATE "C" NOT NULL,                -- ofac-csv, un-xml, ftm, senzing, csv
  provider     TEXT COLLATE "C" NOT NULL,                -- shown in results, e.g. 'OFAC SDN'
  sha256       TEXT COLLATE "C" NOT NULL,                -- of the imported files, in order
  entity_count BIGINT NOT NULL,
  imported_at  TEXT COLLATE "C" NOT NULL,
  active       BIGINT NOT NULL CHECK (active IN (0, 1))
, complete BIGINT NOT NULL DEFAULT 1 CHECK (complete IN (0, 1)));

CREATE TABLE list_entities (
  version_id TEXT COLLATE "C" NOT NULL REFERENCES list_versions (id) ON DELETE CASCADE DEFERRABLE,
  seq        BIGINT NOT NULL,
  body       BYTEA NOT NULL,                  -- JSON of screening.Entity
  PRIMARY KEY (version_id, seq)
);

CREATE TABLE write_probe (
  id   BIGINT PRIMARY KEY,
  data BYTEA NOT NULL
);

CREATE INDEX aml_checks_next_screen_at_idx ON aml_checks (next_screen_at) WHERE next_screen_at IS NOT NULL;

CREATE INDEX aml_checks_org_env_id_idx ON aml_checks (organization_id, environment, id);

CREATE INDEX aml_checks_org_env_status_id_idx ON aml_checks (organization_id, environment, status, id);

CREATE INDEX aml_screenings_check_id_idx ON aml_screenings (check_id, id);

CREATE INDEX api_keys_organization_id_idx ON api_keys (organization_id);

CREATE UNIQUE INDEX applicants_org_env_external_ref_idx
  ON applicants (organization_id, environment, external_ref) WHERE external_ref IS NOT NULL;

CREATE INDEX applicants_org_env_id_idx ON applicants (organization_id, environment, id);

CREATE INDEX applicants_org_env_status_id_idx ON applicants (organization_id, environment, status, id);

CREATE INDEX audit_log_resource_idx ON audit_log (resource_id, id);

CREATE UNIQUE INDEX data_keys_active_idx ON data_keys (active) WHERE active = 1;

CREATE INDEX events_org_env_id_idx ON events (organization_id, environment, id);

CREATE INDEX face_descriptors_org_env_idx ON face_descriptors (organization_id, environment, id);

CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);

CREATE INDEX jobs_state_run_at_idx ON jobs (state, run_at);

CREATE INDEX kyc_captures_ip_idx ON kyc_captures (ip, captured_at);

CREATE INDEX kyc_captures_plaintext_idx ON kyc_captures (id) WHERE key_id IS NULL;

CREATE INDEX kyc_captures_request_idx ON kyc_captures (request_id, kind, id);

CREATE INDEX kyc_captures_sha256_idx ON kyc_captures (sha256);

CREATE INDEX kyc_captures_sha_idx ON kyc_captures (source_sha256);

CREATE INDEX kyc_events_request_idx ON kyc_events (request_id, id);

CREATE INDEX kyc_requests_applicant_idx ON kyc_requests (applicant_id);

CREATE INDEX kyc_requests_org_document_number_idx ON kyc_requests (organization_id, environment, document_number)
  WHERE document_number IS NOT NULL;

CREATE INDEX kyc_requests_org_env_id_idx ON kyc_requests (organization_id, environment, id);

CREATE INDEX kyc_requests_org_env_status_id_idx ON kyc_requests (organization_id, environment, status, id);

CREATE INDEX kyc_requests_plaintext_document_idx ON kyc_requests (id)
  WHERE document_key_id IS NULL AND document_data IS NOT NULL;

CREATE UNIQUE INDEX list_versions_active_source_idx ON list_versions (source) WHERE active = 1;

CREATE INDEX liveness_sessions_request_idx ON liveness_sessions (request_id, id);

CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempt);

CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);

CREATE INDEX webhook_deliveries_org_env_id_idx ON webhook_deliveries (organization_id, environment, id);

CREATE INDEX webhook_endpoints_org_env_idx ON webhook_endpoints (organization_id, environment, id);

INSERT INTO audit_head (id, mac_from, row_count, head_hash) VALUES (1, 1, 0, '');

CREATE TRIGGER audit_head_no_delete BEFORE DELETE ON audit_head
  FOR EACH ROW EXECUTE FUNCTION kycd_refuse('audit_head is never deleted');

CREATE TRIGGER audit_log_chained BEFORE INSERT ON audit_log
  FOR EACH ROW WHEN (NEW.prev_hash IS NULL OR NEW.content_hash IS NULL)
  EXECUTE FUNCTION kycd_refuse('audit_log rows must carry prev_hash and content_hash');

CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION kycd_refuse('audit_log is append-only');

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION kycd_refuse('audit_log is append-only');

-- TRUNCATE skips row triggers; SQLite has no TRUNCATE.
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION kycd_refuse('audit_log is append-only');

CREATE TRIGGER kyc_captures_camera_needs_session BEFORE INSERT ON kyc_captures
  FOR EACH ROW WHEN (NEW.method = 'camera' AND NEW.session_id IS NULL)
  EXECUTE FUNCTION kycd_refuse('a camera capture needs a passed liveness session');

CREATE TRIGGER kyc_events_no_update BEFORE UPDATE ON kyc_events
  FOR EACH ROW EXECUTE FUNCTION kycd_refuse('kyc_events is append-only');
