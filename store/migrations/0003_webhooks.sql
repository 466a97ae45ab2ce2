-- Events, webhook endpoints, deliveries and their attempts, and the e-mail
-- outbox. Every row carries its organization and environment.

CREATE TABLE events (
  id              TEXT PRIMARY KEY,          -- kev_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  type            TEXT NOT NULL,             -- one of spec §6.2
  resource_id     TEXT NOT NULL,             -- kyc_…, aml_…, we_… (test events)
  payload         BLOB NOT NULL,             -- the exact JSON body every delivery sends
  created_at      TEXT NOT NULL
) STRICT;

CREATE INDEX events_org_env_id_idx ON events (organization_id, environment, id);

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
) STRICT;

CREATE INDEX webhook_endpoints_org_env_idx ON webhook_endpoints (organization_id, environment, id);

CREATE TABLE webhook_deliveries (
  id              TEXT PRIMARY KEY,          -- whd_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id        TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  event_type      TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,
  next_attempt_at TEXT,
  delivered_at    TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
) STRICT;

CREATE INDEX webhook_deliveries_org_env_id_idx ON webhook_deliveries (organization_id, environment, id);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);

CREATE TABLE webhook_attempts (
  id               INTEGER PRIMARY KEY,
  delivery_id      TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt          INTEGER NOT NULL,
  request_headers  TEXT NOT NULL,            -- JSON object of the headers sent
  response_status  INTEGER,                  -- NULL: no HTTP response
  response_excerpt TEXT NOT NULL DEFAULT '', -- first 1 KiB of the response body
  duration_ms      INTEGER NOT NULL,
  error            TEXT NOT NULL DEFAULT '',
  started_at       TEXT NOT NULL,
  next_retry_at    TEXT
) STRICT;

CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempt);

-- Mail that kycd sends (endpoint disabled, later portal links). Without SMTP
-- configured it stays here, unsent, so nothing is lost.
CREATE TABLE email_outbox (
  id              INTEGER PRIMARY KEY,
  organization_id TEXT REFERENCES organizations (id) ON DELETE CASCADE,
  to_address      TEXT NOT NULL,
  subject         TEXT NOT NULL,
  body            TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  sent_at         TEXT,
  error           TEXT
) STRICT;
