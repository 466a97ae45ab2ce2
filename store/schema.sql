-- The current schema, generated from migrations/ by `go test ./store -run TestSchema -update`.
-- Read it; change the schema with a new numbered migration.
-- PRAGMA user_version = 34

CREATE TRIGGER aml_match_decisions_no_update BEFORE UPDATE ON aml_match_decisions
  BEGIN SELECT RAISE(ABORT, 'aml_match_decisions is append-only'); END;

CREATE TRIGGER audit_head_no_delete BEFORE DELETE ON audit_head BEGIN SELECT RAISE(ABORT, 'audit_head is never deleted'); END;

CREATE TRIGGER audit_log_chained BEFORE INSERT ON audit_log
  WHEN NEW.prev_hash IS NULL OR NEW.content_hash IS NULL
  BEGIN SELECT RAISE(ABORT, 'audit_log rows must carry prev_hash and content_hash'); END;

CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

CREATE TRIGGER kyc_captures_camera_needs_session BEFORE INSERT ON kyc_captures
  WHEN NEW.method = 'camera' AND NEW.session_id IS NULL
BEGIN
  SELECT RAISE(ABORT, 'a camera capture needs a passed liveness session');
END;

CREATE TRIGGER kyc_events_no_update BEFORE UPDATE ON kyc_events BEGIN SELECT RAISE(ABORT, 'kyc_events is append-only'); END;

CREATE TABLE aml_batch_rows (
  batch_id  TEXT NOT NULL REFERENCES aml_batches (id) ON DELETE CASCADE,
  row_index INTEGER NOT NULL,
  subject   TEXT NOT NULL,                               -- JSON: kyc.AMLBatchSubject as sent
  status    TEXT NOT NULL CHECK (status IN ('pending', 'screened', 'failed')),
  check_id  TEXT REFERENCES aml_checks (id) ON DELETE SET NULL,
  errors    TEXT,                                        -- JSON: the row's field errors when failed
  PRIMARY KEY (batch_id, row_index)
) STRICT;

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

CREATE TABLE aml_case_entries (
  id         TEXT PRIMARY KEY,                           -- ace_<ulid>
  case_id    TEXT NOT NULL REFERENCES aml_cases (id) ON DELETE CASCADE,
  kind       TEXT NOT NULL CHECK (kind IN ('opened', 'confirmed', 'note', 'assigned', 'due', 'sar', 'closed', 'reopened')),
  text       TEXT NOT NULL,
  actor_type TEXT NOT NULL,
  actor_id   TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

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

CREATE TABLE aml_checks (
  id               TEXT PRIMARY KEY,         -- aml_<ulid>
  public_id        TEXT NOT NULL UNIQUE,     -- aml_<12 base32>
  organization_id  TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment      TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  first_name       TEXT NOT NULL,
  last_name        TEXT NOT NULL,
  dob              TEXT,
  country          TEXT,
  monitoring       INTEGER NOT NULL CHECK (monitoring IN (0, 1)),
  status           TEXT NOT NULL CHECK (status IN ('no_match', 'potential_match', 'failed')),
  risk_level       TEXT CHECK (risk_level IN ('low', 'medium', 'high')),
  match_count      INTEGER NOT NULL,
  threshold        REAL NOT NULL,
  results          TEXT NOT NULL,            -- JSON array of per-list results
  last_screened_at TEXT NOT NULL,
  next_screen_at   TEXT,                     -- set while monitoring is on
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
, review_status TEXT NOT NULL DEFAULT 'not_required'
  CHECK (review_status IN ('not_required', 'pending', 'resolved')), resolved_at TEXT, erased_at TEXT, erased_sha256 TEXT) STRICT;

CREATE TABLE aml_match_decisions (
  id         TEXT PRIMARY KEY,                           -- amd_<ulid>
  check_id   TEXT NOT NULL REFERENCES aml_checks (id) ON DELETE CASCADE,
  match_id   TEXT NOT NULL,                              -- mat_…: stable across re-screens
  match_key  TEXT NOT NULL,                              -- source/entityId, for people reading the table
  decision   TEXT NOT NULL CHECK (decision IN ('false_positive', 'confirmed')),
  note       TEXT NOT NULL,
  entity     TEXT NOT NULL,                              -- JSON: the listed entity when decided (kyc.ListedEntity)
  actor_type TEXT NOT NULL,
  actor_id   TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE "aml_screenings" (
  id              TEXT PRIMARY KEY,          -- ams_<ulid>
  check_id        TEXT NOT NULL REFERENCES aml_checks (id) ON DELETE CASCADE,
  trigger         TEXT NOT NULL CHECK (trigger IN ('initial', 'daily', 'list_update', 'manual')),
  screened_at     TEXT NOT NULL,
  status          TEXT NOT NULL,
  previous_status TEXT,
  risk_level      TEXT,
  match_count     INTEGER NOT NULL,
  changed         INTEGER NOT NULL CHECK (changed IN (0, 1)),
  detail          TEXT NOT NULL              -- JSON: new/removed matches, list versions
, erased_at TEXT) STRICT;

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

CREATE TABLE api_key_requests (
  key_id   TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  hour     TEXT NOT NULL,                                -- UTC, "2026-11-24T13"
  requests INTEGER NOT NULL,
  PRIMARY KEY (key_id, hour)
) STRICT, WITHOUT ROWID;

CREATE TABLE api_keys (
  id              TEXT PRIMARY KEY,          -- the <ulid> part of svc_test_<ulid>.<secret>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  tier            TEXT NOT NULL CHECK (tier IN ('free', 'starter', 'pro')),
  rpm_override    INTEGER CHECK (rpm_override >= 0), -- NULL: the tier's limit; 0: unlimited
  name            TEXT NOT NULL DEFAULT '',
  secret_hash     BLOB NOT NULL,             -- SHA-256 of the secret part
  created_at      TEXT NOT NULL,
  revoked_at      TEXT
, last_used_at TEXT, last_used_ip TEXT) STRICT;

CREATE TABLE applicants (
  id              TEXT PRIMARY KEY,          -- app_<ulid>
  public_id       TEXT NOT NULL UNIQUE,      -- app_<12 base32>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  first_name      TEXT NOT NULL,
  last_name       TEXT NOT NULL,
  email           TEXT,
  phone           TEXT,
  dob             TEXT,
  country         TEXT,
  external_ref    TEXT,
  metadata        TEXT NOT NULL DEFAULT '{}', -- JSON object
  status          TEXT NOT NULL CHECK (status IN ('active', 'archived')),
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  archived_at     TEXT
, erased_at TEXT, erasure_scheduled_at TEXT, legal_hold_reason TEXT, legal_hold_at TEXT, relationship_end TEXT) STRICT;

CREATE TABLE audit_head (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  mac_from     INTEGER NOT NULL,  -- first audit_log id whose content_hash is a MAC
  row_count    INTEGER NOT NULL,  -- the last audit_log id the head covers
  head_hash    TEXT NOT NULL,     -- that row's content_hash ('' until signed)
  signed_since TEXT,              -- when the head was first signed
  signed_at    TEXT,              -- when it was last signed
  mac          TEXT               -- hex HMAC-SHA256 of the head; NULL until signed
) STRICT;

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
, prev_hash TEXT, content_hash TEXT) STRICT;

CREATE TABLE callback_secrets (
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  secret          BLOB NOT NULL,             -- sealed whsec_… secret, AAD 'callback <org> <env>'
  previous_secret BLOB,                      -- sealed; signs too until previous_secret_until when dual_sign
  previous_secret_until TEXT,
  dual_sign       INTEGER NOT NULL DEFAULT 0 CHECK (dual_sign IN (0, 1)),
  created_at      TEXT NOT NULL,
  rotated_at      TEXT,
  PRIMARY KEY (organization_id, environment)
) STRICT;

CREATE TABLE case_claims (
  request_id TEXT PRIMARY KEY REFERENCES kyc_requests (id) ON DELETE CASCADE,
  user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  claimed_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;

CREATE TABLE case_comments (
  id              TEXT PRIMARY KEY, -- cmt_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  subject_type    TEXT NOT NULL CHECK (subject_type IN ('kyc_request', 'aml_case')),
  subject_id      TEXT NOT NULL,
  author_type     TEXT NOT NULL CHECK (author_type IN ('user', 'api_key')),
  author_id       TEXT NOT NULL,
  author_name     TEXT NOT NULL,
  body            TEXT NOT NULL,
  mentions        TEXT NOT NULL DEFAULT '',
  created_at      TEXT NOT NULL
) STRICT;

CREATE TABLE case_tags (
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  subject_type    TEXT NOT NULL CHECK (subject_type IN ('kyc_request', 'aml_case')),
  subject_id      TEXT NOT NULL,
  tag             TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  PRIMARY KEY (organization_id, environment, subject_type, tag, subject_id)
) STRICT;

CREATE TABLE console_sessions (
  id_hash      BLOB PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- totp: the password was right, the second factor is still due;
  -- enrol: the organization requires a second factor the user has not set
  -- up yet; full: signed in.
  stage        TEXT NOT NULL CHECK (stage IN ('totp', 'enrol', 'full')),
  created_at   TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  expires_at   TEXT NOT NULL,                            -- absolute end, whatever the activity
  ip           TEXT NOT NULL,
  user_agent   TEXT NOT NULL
) STRICT;

CREATE TABLE data_keys (
  id         INTEGER PRIMARY KEY,
  wrapped    BLOB NOT NULL,                    -- 32-byte key sealed by the master key, AAD 'kycd data key <id>'
  created_at TEXT NOT NULL,
  active     INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)) -- the key new data is sealed with
) STRICT;

CREATE TABLE document_sessions (
  id           TEXT PRIMARY KEY,                 -- dcs_<ulid>
  request_id   TEXT NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE,
  nonce_sha256 TEXT NOT NULL UNIQUE,             -- the page holds the nonce; only its hash is kept
  opened_at    TEXT NOT NULL,
  deadline_at  TEXT NOT NULL,
  user_agent   TEXT NOT NULL,
  ip           TEXT NOT NULL
, attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1)) STRICT;

CREATE TABLE email_outbox (
  id              INTEGER PRIMARY KEY,
  organization_id TEXT REFERENCES organizations (id) ON DELETE CASCADE,
  to_address      TEXT NOT NULL,
  subject         TEXT NOT NULL,
  body            TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  sent_at         TEXT,
  error           TEXT
, html_body TEXT, from_name TEXT, reply_to TEXT, logo_sha256 TEXT REFERENCES organization_logos (sha256), body_key_id INTEGER REFERENCES data_keys (id), expired_at TEXT) STRICT;

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

CREATE TABLE events (
  id              TEXT PRIMARY KEY,          -- kev_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  type            TEXT NOT NULL,             -- one of spec §6.2
  resource_id     TEXT NOT NULL,             -- kyc_…, aml_…, we_… (test events)
  payload         BLOB NOT NULL,             -- the exact JSON body every delivery sends
  created_at      TEXT NOT NULL
) STRICT;

CREATE TABLE face_descriptors (
  id              TEXT PRIMARY KEY,            -- fd_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  applicant_id    TEXT NOT NULL REFERENCES applicants (id),
  request_id      TEXT NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE,
  capture_id      TEXT NOT NULL UNIQUE REFERENCES kyc_captures (id) ON DELETE CASCADE,
  key_id          INTEGER NOT NULL REFERENCES data_keys (id),
  descriptor      BLOB NOT NULL,               -- 128 little-endian float32, sealed
  created_at      TEXT NOT NULL
) STRICT;

CREATE TABLE idempotency_keys (
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  key             TEXT NOT NULL,
  request_hash    BLOB NOT NULL,             -- SHA-256 of method, path and canonical body
  status_code     INTEGER NOT NULL,
  response_body   BLOB NOT NULL,
  created_at      TEXT NOT NULL,
  expires_at      TEXT NOT NULL, response_key_id INTEGER REFERENCES data_keys (id),
  PRIMARY KEY (organization_id, environment, key)
) STRICT, WITHOUT ROWID;

CREATE TABLE jobs (
  id           INTEGER PRIMARY KEY,
  kind         TEXT NOT NULL,
  payload      BLOB NOT NULL,                -- JSON, owned by the kind's handler
  state        TEXT NOT NULL CHECK (state IN ('pending', 'running', 'done', 'dead')),
  run_at       TEXT NOT NULL,                -- due time (pending) or lease expiry (running)
  attempts     INTEGER NOT NULL DEFAULT 0,   -- claims so far; also the lease token
  max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),
  last_error   TEXT,
  dedupe_key   TEXT UNIQUE,                  -- e.g. 'aml.rescreen/2026-11-22': scheduled once
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
) STRICT;

CREATE TABLE key_store (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  store_id TEXT NOT NULL
) STRICT;

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
, key_id INTEGER REFERENCES data_keys (id), session_id TEXT REFERENCES liveness_sessions (id), document_session_id TEXT REFERENCES document_sessions (id), attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1)) STRICT;

CREATE TABLE kyc_decision_counts (
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  day             TEXT NOT NULL,                 -- YYYY-MM-DD, UTC, of the decision
  decision        TEXT NOT NULL CHECK (decision IN ('approved', 'rejected')),
  decided_by      TEXT NOT NULL CHECK (decided_by IN ('engine', 'person', 'api')),
  reviewer_id     TEXT NOT NULL DEFAULT '',
  decisions       INTEGER NOT NULL,
  PRIMARY KEY (organization_id, environment, day, decision, decided_by, reviewer_id)
) STRICT;

CREATE TABLE kyc_decision_times (
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  day             TEXT NOT NULL,
  seconds         INTEGER NOT NULL CHECK (seconds >= 0),
  decisions       INTEGER NOT NULL,
  PRIMARY KEY (organization_id, environment, day, seconds)
) STRICT;

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

CREATE TABLE kyc_request_reasons (
  organization_id TEXT NOT NULL,
  environment     TEXT NOT NULL,
  code            TEXT NOT NULL,
  request_id      TEXT NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE,
  source          TEXT NOT NULL CHECK (source IN ('engine', 'review')),
  PRIMARY KEY (organization_id, environment, code, request_id)
) STRICT;

CREATE TABLE kyc_requests (
  id                    TEXT PRIMARY KEY,      -- kyc_<ulid>
  public_id             TEXT NOT NULL UNIQUE,  -- kyc_<12 base32>
  organization_id       TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment           TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  applicant_id          TEXT NOT NULL REFERENCES applicants (id),
  status                TEXT NOT NULL CHECK (status IN ('link_generated', 'in_progress', 'submitted', 'processing',
                          'approved', 'rejected', 'awaiting_review', 'expired', 'cancelled', 'failed', 'resubmission_requested')),
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
, document_data TEXT, document_number TEXT, pending_review TEXT, review_reason_code TEXT, document_key_id INTEGER REFERENCES data_keys (id), locale TEXT, portal_token_sealed BLOB, portal_token_key_id INTEGER REFERENCES data_keys (id), portal_opened_at TEXT, reason_codes TEXT, document_number_read TEXT, assignee_id TEXT REFERENCES users (id) ON DELETE SET NULL, assigned_at TEXT, decided_by TEXT CHECK (decided_by IN ('engine', 'person', 'api')), attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1), overdue_at TEXT, escalated_at TEXT, escalated_by TEXT REFERENCES users (id) ON DELETE SET NULL, escalation_reason TEXT, review_reason_codes TEXT, address_read TEXT, address_read_key_id INTEGER REFERENCES data_keys (id)) STRICT;

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

CREATE TABLE list_entities (
  version_id TEXT NOT NULL REFERENCES list_versions (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  body       BLOB NOT NULL,                  -- JSON of screening.Entity
  PRIMARY KEY (version_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE list_imports (
  id          TEXT PRIMARY KEY,                          -- lim_<ulid>
  source      TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('sanctions', 'pep', 'adverse_media')),
  format      TEXT NOT NULL,
  provider    TEXT NOT NULL,                             -- as typed; '' for the format's default
  forced      INTEGER NOT NULL CHECK (forced IN (0, 1)), -- import even when the files are unchanged
  files       TEXT NOT NULL,                             -- JSON: [{"name": …, "size": …}] as uploaded
  state       TEXT NOT NULL CHECK (state IN ('running', 'imported', 'unchanged', 'failed', 'interrupted')),
  phase       TEXT NOT NULL,                             -- checking, importing, loading, done
  bytes       INTEGER NOT NULL DEFAULT 0,                -- read in this phase
  total       INTEGER NOT NULL,                          -- bytes of all the files
  entities    INTEGER NOT NULL DEFAULT 0,                -- stored so far
  version_id  TEXT REFERENCES list_versions (id) ON DELETE SET NULL, -- the new version, or the unchanged one
  error       TEXT,
  actor_id    TEXT REFERENCES users (id) ON DELETE SET NULL,        -- who uploaded the files
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  finished_at TEXT
) STRICT;

CREATE TABLE list_versions (
  id           TEXT PRIMARY KEY,             -- lsv_<ulid>
  source       TEXT NOT NULL,                -- operator's name for the list, e.g. ofac-sdn
  kind         TEXT NOT NULL CHECK (kind IN ('sanctions', 'pep', 'adverse_media')),
  format       TEXT NOT NULL,                -- ofac-csv, un-xml, ftm, senzing, csv
  provider     TEXT NOT NULL,                -- shown in results, e.g. 'OFAC SDN'
  sha256       TEXT NOT NULL,                -- of the imported files, in order
  entity_count INTEGER NOT NULL,
  imported_at  TEXT NOT NULL,
  active       INTEGER NOT NULL CHECK (active IN (0, 1))
, complete INTEGER NOT NULL DEFAULT 1 CHECK (complete IN (0, 1))) STRICT;

CREATE TABLE liveness_frames (
  id           TEXT PRIMARY KEY,                 -- lvf_<ulid>
  session_id   TEXT NOT NULL REFERENCES liveness_sessions (id) ON DELETE CASCADE,
  seq          INTEGER NOT NULL,                 -- capture order, from 0
  step         INTEGER NOT NULL,                 -- 0 looks straight, then the challenge's movements
  content_type TEXT NOT NULL,
  size         INTEGER NOT NULL,
  width        INTEGER NOT NULL,
  height       INTEGER NOT NULL,
  sha256       TEXT NOT NULL,
  key_id       INTEGER NOT NULL REFERENCES data_keys (id),
  data         BLOB NOT NULL,
  UNIQUE (session_id, seq)
) STRICT;

CREATE TABLE liveness_sessions (
  id                TEXT PRIMARY KEY,            -- lvs_<ulid>
  request_id        TEXT NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE,
  nonce_sha256      TEXT NOT NULL UNIQUE,        -- the page holds the nonce; only its hash is kept
  challenge         TEXT NOT NULL,               -- JSON array of movements
  status            TEXT NOT NULL CHECK (status IN ('open', 'passed', 'failed')),
  opened_at         TEXT NOT NULL,
  deadline_at       TEXT NOT NULL,
  received_at       TEXT,                        -- when the frames arrived: the nonce is spent
  verdict           TEXT,                        -- JSON: liveness.Verdict
  selfie_capture_id TEXT REFERENCES kyc_captures (id) ON DELETE SET NULL,
  user_agent        TEXT NOT NULL,
  ip                TEXT NOT NULL
, attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1)) STRICT;

CREATE TABLE login_failures (
  scope   TEXT NOT NULL CHECK (scope IN ('account', 'address')),
  subject TEXT NOT NULL,                                 -- the e-mail as typed (lower case), or the address
  at      TEXT NOT NULL
) STRICT;

CREATE TABLE organization_logos (
  sha256       TEXT PRIMARY KEY,
  content_type TEXT NOT NULL CHECK (content_type IN ('image/png', 'image/svg+xml')),
  width        INTEGER NOT NULL,
  height       INTEGER NOT NULL,
  data         BLOB NOT NULL,
  created_at   TEXT NOT NULL
) STRICT;

CREATE TABLE organizations (
  id            TEXT PRIMARY KEY,            -- org_<ulid>
  name          TEXT NOT NULL,
  contact_email TEXT,
  created_at    TEXT NOT NULL
, aml_threshold REAL CHECK (aml_threshold > 0 AND aml_threshold <= 1), decision_policy TEXT, four_eyes INTEGER NOT NULL DEFAULT 0 CHECK (four_eyes IN (0, 1)), display_name TEXT, support_email TEXT, privacy_url TEXT, brand_color TEXT, default_locale TEXT, logo_sha256 TEXT REFERENCES organization_logos (sha256), aml_kinds TEXT, require_totp INTEGER NOT NULL DEFAULT 0 CHECK (require_totp IN (0, 1)), report_personal_data TEXT NOT NULL DEFAULT 'full' CHECK (report_personal_data IN ('full', 'masked')), retention_decided_years INTEGER CHECK (retention_decided_years BETWEEN 1 AND 50), retention_inactive_days INTEGER CHECK (retention_inactive_days BETWEEN 1 AND 36500), retention_sandbox_days INTEGER CHECK (retention_sandbox_days BETWEEN 1 AND 36500), review_sla_live_hours INTEGER CHECK (review_sla_live_hours BETWEEN 1 AND 8760), review_sla_sandbox_hours INTEGER CHECK (review_sla_sandbox_hours BETWEEN 1 AND 8760), review_round_robin INTEGER NOT NULL DEFAULT 0 CHECK (review_round_robin IN (0, 1)), review_round_robin_last TEXT, retention_aml_years INTEGER CHECK (retention_aml_years BETWEEN 1 AND 50)) STRICT;

CREATE TABLE reason_codes (
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  code            TEXT NOT NULL,
  label           TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  PRIMARY KEY (organization_id, environment, code)
) STRICT;

CREATE TABLE usage_events (
  metric          TEXT NOT NULL CHECK (metric IN ('kyc_requests_submitted', 'aml_checks_created', 'monitoring_rescreens', 'manual_rescreens')),
  resource_id     TEXT NOT NULL,                         -- the KYC request, AML check or screening (history entry) billed
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  occurred_at     TEXT NOT NULL,
  PRIMARY KEY (metric, resource_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE user_tokens (
  token_hash BLOB PRIMARY KEY,
  user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose    TEXT NOT NULL CHECK (purpose IN ('set_password')),
  expires_at TEXT NOT NULL,
  used_at    TEXT,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE users (
  id              TEXT PRIMARY KEY,                      -- usr_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- Sign-in is by e-mail alone, so an address is one account in the
  -- whole installation.
  email           TEXT NOT NULL UNIQUE COLLATE NOCASE,
  name            TEXT NOT NULL,
  role            TEXT NOT NULL CHECK (role IN ('admin', 'reviewer', 'analyst', 'viewer')),
  password_hash   TEXT,                                  -- argon2id PHC string; NULL until set through a one-time link
  password_set_at TEXT,
  totp_secret     BLOB,                                  -- sealed under the data key (associated data: the user id); NULL: no second factor
  totp_key_id     INTEGER,
  totp_last_step  INTEGER,                               -- the last accepted 30 s step: a code works once
  disabled_at     TEXT,
  last_login_at   TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
, installation_admin INTEGER NOT NULL DEFAULT 0 CHECK (installation_admin IN (0, 1)), review_available INTEGER NOT NULL DEFAULT 0 CHECK (review_available IN (0, 1)), senior INTEGER NOT NULL DEFAULT 0 CHECK (senior IN (0, 1))) STRICT;

CREATE TABLE "webhook_attempts" (
  id               INTEGER PRIMARY KEY,
  delivery_id      TEXT NOT NULL REFERENCES "webhook_deliveries" (id) ON DELETE CASCADE,
  attempt          INTEGER NOT NULL,
  request_headers  TEXT NOT NULL,            -- JSON object of the headers sent
  response_status  INTEGER,                  -- NULL: no HTTP response
  response_excerpt TEXT NOT NULL DEFAULT '', -- first 1 KiB of the response body
  -- 1: the receiver's address was not public (kycd serve
  -- --allow-private-webhooks), so its answer was not kept
  response_body_withheld INTEGER NOT NULL DEFAULT 0 CHECK (response_body_withheld IN (0, 1)),
  duration_ms      INTEGER NOT NULL,
  error            TEXT NOT NULL DEFAULT '',
  started_at       TEXT NOT NULL,
  next_retry_at    TEXT
) STRICT;

CREATE TABLE "webhook_deliveries" (
  id              TEXT PRIMARY KEY,          -- whd_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  endpoint_id     TEXT REFERENCES webhook_endpoints (id) ON DELETE CASCADE, -- NULL: to callback_url
  callback_url    TEXT,                      -- the request's callbackUrl; set exactly when endpoint_id is NULL
  event_id        TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  event_type      TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,
  next_attempt_at TEXT,
  delivered_at    TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  CHECK ((endpoint_id IS NULL) = (callback_url IS NOT NULL))
) STRICT;

CREATE TABLE webhook_endpoints (
  id              TEXT PRIMARY KEY,          -- we_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  url             TEXT NOT NULL,
  description     TEXT NOT NULL DEFAULT '',
  event_types     TEXT NOT NULL DEFAULT '[]', -- JSON array; empty = all types
  secret          BLOB NOT NULL,             -- sealed (AES-256-GCM) whsec_… secret
  previous_secret BLOB,                      -- sealed; also signed with until previous_secret_until
  previous_secret_until TEXT,
  enabled         INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  disabled_reason TEXT,
  disabled_at     TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  deleted_at      TEXT                       -- soft delete: deliveries keep their history
, dual_sign INTEGER NOT NULL DEFAULT 0 CHECK (dual_sign IN (0, 1))) STRICT;

CREATE TABLE write_probe (
  id   INTEGER PRIMARY KEY,
  data BLOB NOT NULL
) STRICT;

CREATE INDEX aml_batch_rows_status_idx ON aml_batch_rows (batch_id, status, row_index);

CREATE INDEX aml_batches_org_idx ON aml_batches (organization_id, environment, id);

CREATE INDEX aml_case_entries_case_idx ON aml_case_entries (case_id, id);

CREATE INDEX aml_cases_assignee_idx ON aml_cases (organization_id, environment, assignee_id, id);

CREATE UNIQUE INDEX aml_cases_open_idx ON aml_cases (check_id) WHERE status = 'open';

CREATE INDEX aml_cases_org_idx ON aml_cases (organization_id, environment, status, id);

CREATE INDEX aml_checks_next_screen_at_idx ON aml_checks (next_screen_at) WHERE next_screen_at IS NOT NULL;

CREATE INDEX aml_checks_org_env_id_idx ON aml_checks (organization_id, environment, id);

CREATE INDEX aml_checks_org_env_status_id_idx ON aml_checks (organization_id, environment, status, id);

CREATE INDEX aml_checks_retention_idx ON aml_checks (organization_id, environment, last_screened_at)
  WHERE erased_at IS NULL;

CREATE INDEX aml_checks_review_idx ON aml_checks (organization_id, environment, review_status, id);

CREATE INDEX aml_match_decisions_check_idx ON aml_match_decisions (check_id, id);

CREATE INDEX aml_screenings_check_id_idx ON aml_screenings (check_id, id);

CREATE INDEX aml_screenings_retention_idx ON aml_screenings (screened_at, id) WHERE erased_at IS NULL;

CREATE UNIQUE INDEX aml_suppressions_active_idx ON aml_suppressions (organization_id, environment, subject_key, match_id)
  WHERE lifted_at IS NULL;

CREATE INDEX api_keys_organization_id_idx ON api_keys (organization_id);

CREATE INDEX applicants_erasure_due_idx ON applicants (erasure_scheduled_at)
  WHERE erasure_scheduled_at IS NOT NULL AND erased_at IS NULL;

CREATE UNIQUE INDEX applicants_org_env_external_ref_idx
  ON applicants (organization_id, environment, external_ref) WHERE external_ref IS NOT NULL;

CREATE INDEX applicants_org_env_id_idx ON applicants (organization_id, environment, id);

CREATE INDEX applicants_org_env_status_id_idx ON applicants (organization_id, environment, status, id);

CREATE INDEX audit_log_org_idx ON audit_log (organization_id, id);

CREATE INDEX audit_log_resource_idx ON audit_log (resource_id, id);

CREATE INDEX case_comments_subject_idx ON case_comments (organization_id, environment, subject_type, subject_id, id);

CREATE INDEX case_tags_subject_idx ON case_tags (subject_id, tag);

CREATE INDEX console_sessions_expires_idx ON console_sessions (expires_at);

CREATE INDEX console_sessions_user_idx ON console_sessions (user_id);

CREATE UNIQUE INDEX data_keys_active_idx ON data_keys (active) WHERE active = 1;

CREATE INDEX document_sessions_request_idx ON document_sessions (request_id, id);

CREATE INDEX erasures_org_env_idx ON erasures (organization_id, environment, erased_at);

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

CREATE INDEX kyc_request_reasons_request_idx ON kyc_request_reasons (request_id);

CREATE INDEX kyc_requests_applicant_idx ON kyc_requests (applicant_id);

CREATE INDEX kyc_requests_org_document_number_idx ON kyc_requests (organization_id, environment, document_number)
  WHERE document_number IS NOT NULL;

CREATE INDEX kyc_requests_org_document_number_read_idx ON kyc_requests (organization_id, environment, document_number_read)
  WHERE document_number_read IS NOT NULL;

CREATE INDEX kyc_requests_org_env_assignee_idx ON kyc_requests (organization_id, environment, assignee_id, id);

CREATE INDEX kyc_requests_org_env_created_idx ON kyc_requests (organization_id, environment, created_at, id);

CREATE INDEX kyc_requests_org_env_decided_by_idx ON kyc_requests (organization_id, environment, decided_by, decided_at, id);

CREATE INDEX kyc_requests_org_env_decided_idx ON kyc_requests (organization_id, environment, decided_at, id);

CREATE INDEX kyc_requests_org_env_decider_decision_idx ON kyc_requests (organization_id, environment, decided_by, decision, id);

CREATE INDEX kyc_requests_org_env_decision_idx ON kyc_requests (organization_id, environment, decision, id);

CREATE INDEX kyc_requests_org_env_escalated_idx ON kyc_requests (organization_id, environment, escalated_at, id);

CREATE INDEX kyc_requests_org_env_id_idx ON kyc_requests (organization_id, environment, id);

CREATE INDEX kyc_requests_org_env_risk_idx ON kyc_requests (organization_id, environment, risk_score, id);

CREATE INDEX kyc_requests_org_env_status_assignee_idx ON kyc_requests (organization_id, environment, status, assignee_id, id);

CREATE INDEX kyc_requests_org_env_status_decided_idx ON kyc_requests (organization_id, environment, status, decided_at, id);

CREATE INDEX kyc_requests_org_env_status_id_idx ON kyc_requests (organization_id, environment, status, id);

CREATE INDEX kyc_requests_org_env_status_submitted_idx ON kyc_requests (organization_id, environment, status, submitted_at);

CREATE INDEX kyc_requests_overdue_idx ON kyc_requests (organization_id, environment, status, overdue_at, submitted_at);

CREATE INDEX kyc_requests_plaintext_document_idx ON kyc_requests (id)
  WHERE document_key_id IS NULL AND document_data IS NOT NULL;

CREATE INDEX kyc_requests_queue_idx ON kyc_requests (organization_id, environment, status, submitted_at, id, reason_codes);

CREATE UNIQUE INDEX list_imports_running_idx ON list_imports (state) WHERE state = 'running';

CREATE UNIQUE INDEX list_versions_active_source_idx ON list_versions (source) WHERE active = 1;

CREATE INDEX liveness_sessions_request_idx ON liveness_sessions (request_id, id);

CREATE INDEX login_failures_idx ON login_failures (scope, subject, at);

CREATE INDEX usage_events_org_idx ON usage_events (organization_id, occurred_at);

CREATE INDEX user_tokens_user_idx ON user_tokens (user_id);

CREATE INDEX users_org_idx ON users (organization_id, id);

CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempt);

CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);

CREATE INDEX webhook_deliveries_org_env_id_idx ON webhook_deliveries (organization_id, environment, id);

CREATE INDEX webhook_endpoints_org_env_idx ON webhook_endpoints (organization_id, environment, id);

