-- Issue #9: a KYC request's callbackUrl receives the request's events like
-- an endpoint, signed with the organization's callback secret; endpoints
-- send one signature during a secret rotation unless asked for two; an
-- attempt records when the receiver's answer was not kept.

-- dual_sign: after a rotation, also sign with the previous secret until
-- previous_secret_until (two sig= in one header). Off: only the newest.
ALTER TABLE webhook_endpoints ADD COLUMN dual_sign INTEGER NOT NULL DEFAULT 0 CHECK (dual_sign IN (0, 1));

-- The signing secret of deliveries to callback URLs, one per organization
-- and environment (sandbox and live stay isolated). Created when the first
-- request with a callbackUrl is, shown once; rotated by the API or the CLI.
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

-- A delivery goes to an endpoint or, with endpoint_id NULL, to the
-- callback_url its event's request had when the event happened. SQLite
-- cannot drop a NOT NULL, so the table is rebuilt, and webhook_attempts
-- with it: the new attempts table refers to the new deliveries table, so
-- dropping the old ones cascades to nothing, and renaming the new
-- deliveries table rewrites that reference (foreign keys stay on; a
-- migration runs inside a transaction, where they cannot be turned off).
CREATE TABLE webhook_deliveries_new (
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

INSERT INTO webhook_deliveries_new (id, organization_id, environment, endpoint_id, event_id, event_type, status, attempts,
    last_status_code, next_attempt_at, delivered_at, created_at, updated_at)
  SELECT id, organization_id, environment, endpoint_id, event_id, event_type, status, attempts,
    last_status_code, next_attempt_at, delivered_at, created_at, updated_at FROM webhook_deliveries;

CREATE TABLE webhook_attempts_new (
  id               INTEGER PRIMARY KEY,
  delivery_id      TEXT NOT NULL REFERENCES webhook_deliveries_new (id) ON DELETE CASCADE,
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

INSERT INTO webhook_attempts_new (id, delivery_id, attempt, request_headers, response_status, response_excerpt, duration_ms,
    error, started_at, next_retry_at)
  SELECT id, delivery_id, attempt, request_headers, response_status, response_excerpt, duration_ms,
    error, started_at, next_retry_at FROM webhook_attempts;

DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
ALTER TABLE webhook_deliveries_new RENAME TO webhook_deliveries;
ALTER TABLE webhook_attempts_new RENAME TO webhook_attempts;

CREATE INDEX webhook_deliveries_org_env_id_idx ON webhook_deliveries (organization_id, environment, id);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempt);
