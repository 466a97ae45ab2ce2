-- The back office (/console/): its users, their sessions and one-time
-- links, failed sign-ins (throttling), reviewers' claims on cases, and
-- people's decisions on AML matches.

-- Every user of the organization must have a second factor (TOTP).
ALTER TABLE organizations ADD COLUMN require_totp INTEGER NOT NULL DEFAULT 0 CHECK (require_totp IN (0, 1));

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
) STRICT;

CREATE INDEX users_org_idx ON users (organization_id, id);

-- One-time links (set or reset a password). Only the token's SHA-256 is kept.
CREATE TABLE user_tokens (
  token_hash BLOB PRIMARY KEY,
  user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose    TEXT NOT NULL CHECK (purpose IN ('set_password')),
  expires_at TEXT NOT NULL,
  used_at    TEXT,
  created_at TEXT NOT NULL
) STRICT;

CREATE INDEX user_tokens_user_idx ON user_tokens (user_id);

-- Console sessions. The cookie holds an opaque random id; only its
-- SHA-256 is kept, as for API keys.
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

CREATE INDEX console_sessions_user_idx ON console_sessions (user_id);
CREATE INDEX console_sessions_expires_idx ON console_sessions (expires_at);

-- Failed sign-ins, for throttling per account and per client address.
CREATE TABLE login_failures (
  scope   TEXT NOT NULL CHECK (scope IN ('account', 'address')),
  subject TEXT NOT NULL,                                 -- the e-mail as typed (lower case), or the address
  at      TEXT NOT NULL
) STRICT;

CREATE INDEX login_failures_idx ON login_failures (scope, subject, at);

-- A reviewer's claim on a case, so that two people do not work on it at
-- once. A claim ends at expires_at, or when its holder decides or lets go.
CREATE TABLE case_claims (
  request_id TEXT PRIMARY KEY REFERENCES kyc_requests (id) ON DELETE CASCADE,
  user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  claimed_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;


-- People's decisions on AML matches. Every decision is kept; the latest per
-- match applies, and only while the listed entity is as it was then.
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

CREATE INDEX aml_match_decisions_check_idx ON aml_match_decisions (check_id, id);
CREATE TRIGGER aml_match_decisions_no_update BEFORE UPDATE ON aml_match_decisions
  BEGIN SELECT RAISE(ABORT, 'aml_match_decisions is append-only'); END;

-- Whether every match of a check has a current decision.
ALTER TABLE aml_checks ADD COLUMN review_status TEXT NOT NULL DEFAULT 'not_required'
  CHECK (review_status IN ('not_required', 'pending', 'resolved'));
ALTER TABLE aml_checks ADD COLUMN resolved_at TEXT;
UPDATE aml_checks SET review_status = 'pending' WHERE match_count > 0;
CREATE INDEX aml_checks_review_idx ON aml_checks (organization_id, environment, review_status, id);

-- The reason codes of a request's decision (space-separated, most severe
-- first), written with processing_result, so that the review queue can
-- show and filter them without parsing every request's JSON.
ALTER TABLE kyc_requests ADD COLUMN reason_codes TEXT;
UPDATE kyc_requests SET reason_codes = (SELECT group_concat(json_extract(j.value, '$.code'), ' ')
  FROM json_each(processing_result, '$.reasons') j) WHERE processing_result IS NOT NULL AND json_valid(processing_result);

-- The review queue reads requests awaiting review oldest submission first,
-- filtered by reason code: the index holds the codes, so neither the count
-- nor the filter reads the rows (whose processing_result is large: a new
-- column comes after it, behind its overflow pages).
CREATE INDEX kyc_requests_queue_idx ON kyc_requests (organization_id, environment, status, submitted_at, id, reason_codes);
