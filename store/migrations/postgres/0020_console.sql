-- As SQLite's 0020 (read its comments): the back office's users, sessions,
-- one-time links, failed sign-ins, claims and AML match decisions.

-- SQLite compares users.email with COLLATE NOCASE (ASCII case folded); the
-- counterpart here is a nondeterministic ICU collation at the secondary
-- strength: case is ignored, accents are not.
CREATE COLLATION kycd_nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);

ALTER TABLE organizations ADD COLUMN require_totp BIGINT NOT NULL DEFAULT 0 CHECK (require_totp IN (0, 1));

CREATE TABLE users (
  id              TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  email           TEXT COLLATE kycd_nocase NOT NULL UNIQUE,
  name            TEXT COLLATE "C" NOT NULL,
  role            TEXT COLLATE "C" NOT NULL CHECK (role IN ('admin', 'reviewer', 'analyst', 'viewer')),
  password_hash   TEXT COLLATE "C",
  password_set_at TEXT COLLATE "C",
  totp_secret     BYTEA,
  totp_key_id     BIGINT,
  totp_last_step  BIGINT,
  disabled_at     TEXT COLLATE "C",
  last_login_at   TEXT COLLATE "C",
  created_at      TEXT COLLATE "C" NOT NULL,
  updated_at      TEXT COLLATE "C" NOT NULL
);

CREATE INDEX users_org_idx ON users (organization_id, id);

CREATE TABLE user_tokens (
  token_hash BYTEA PRIMARY KEY,
  user_id    TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE DEFERRABLE,
  purpose    TEXT COLLATE "C" NOT NULL CHECK (purpose IN ('set_password')),
  expires_at TEXT COLLATE "C" NOT NULL,
  used_at    TEXT COLLATE "C",
  created_at TEXT COLLATE "C" NOT NULL
);

CREATE INDEX user_tokens_user_idx ON user_tokens (user_id);

CREATE TABLE console_sessions (
  id_hash      BYTEA PRIMARY KEY,
  user_id      TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE DEFERRABLE,
  stage        TEXT COLLATE "C" NOT NULL CHECK (stage IN ('totp', 'enrol', 'full')),
  created_at   TEXT COLLATE "C" NOT NULL,
  last_seen_at TEXT COLLATE "C" NOT NULL,
  expires_at   TEXT COLLATE "C" NOT NULL,
  ip           TEXT COLLATE "C" NOT NULL,
  user_agent   TEXT COLLATE "C" NOT NULL
);

CREATE INDEX console_sessions_user_idx ON console_sessions (user_id);
CREATE INDEX console_sessions_expires_idx ON console_sessions (expires_at);

CREATE TABLE login_failures (
  scope   TEXT COLLATE "C" NOT NULL CHECK (scope IN ('account', 'address')),
  subject TEXT COLLATE "C" NOT NULL,
  at      TEXT COLLATE "C" NOT NULL
);

CREATE INDEX login_failures_idx ON login_failures (scope, subject, at);

CREATE TABLE case_claims (
  request_id TEXT COLLATE "C" PRIMARY KEY REFERENCES kyc_requests (id) ON DELETE CASCADE DEFERRABLE,
  user_id    TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE DEFERRABLE,
  claimed_at TEXT COLLATE "C" NOT NULL,
  expires_at TEXT COLLATE "C" NOT NULL
);

CREATE TABLE aml_match_decisions (
  id         TEXT COLLATE "C" PRIMARY KEY,
  check_id   TEXT COLLATE "C" NOT NULL REFERENCES aml_checks (id) ON DELETE CASCADE DEFERRABLE,
  match_id   TEXT COLLATE "C" NOT NULL,
  match_key  TEXT COLLATE "C" NOT NULL,
  decision   TEXT COLLATE "C" NOT NULL CHECK (decision IN ('false_positive', 'confirmed')),
  note       TEXT COLLATE "C" NOT NULL,
  entity     TEXT COLLATE "C" NOT NULL,
  actor_type TEXT COLLATE "C" NOT NULL,
  actor_id   TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL
);

CREATE INDEX aml_match_decisions_check_idx ON aml_match_decisions (check_id, id);
CREATE TRIGGER aml_match_decisions_no_update BEFORE UPDATE ON aml_match_decisions
  FOR EACH ROW EXECUTE FUNCTION kycd_refuse('aml_match_decisions is append-only');

ALTER TABLE aml_checks ADD COLUMN review_status TEXT COLLATE "C" NOT NULL DEFAULT 'not_required'
  CHECK (review_status IN ('not_required', 'pending', 'resolved'));
ALTER TABLE aml_checks ADD COLUMN resolved_at TEXT COLLATE "C";
UPDATE aml_checks SET review_status = 'pending' WHERE match_count > 0;
CREATE INDEX aml_checks_review_idx ON aml_checks (organization_id, environment, review_status, id);

ALTER TABLE kyc_requests ADD COLUMN reason_codes TEXT COLLATE "C";
UPDATE kyc_requests SET reason_codes = (SELECT string_agg(j.value ->> 'code', ' ' ORDER BY j.n)
  FROM jsonb_array_elements(processing_result::jsonb -> 'reasons') WITH ORDINALITY AS j (value, n))
  WHERE processing_result IS NOT NULL;

CREATE INDEX kyc_requests_queue_idx ON kyc_requests (organization_id, environment, status, submitted_at, id, reason_codes);
