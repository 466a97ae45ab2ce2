-- As SQLite's 0022 (read its comments): usage metering, API keys' use,
-- and the console audit page's index.
CREATE TABLE usage_events (
  metric          TEXT COLLATE "C" NOT NULL CHECK (metric IN ('kyc_requests_submitted', 'aml_checks_created', 'monitoring_rescreens', 'manual_rescreens')),
  resource_id     TEXT COLLATE "C" NOT NULL,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  occurred_at     TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (metric, resource_id)
);

CREATE INDEX usage_events_org_idx ON usage_events (organization_id, occurred_at);

ALTER TABLE api_keys ADD COLUMN last_used_at TEXT COLLATE "C";
ALTER TABLE api_keys ADD COLUMN last_used_ip TEXT COLLATE "C";

CREATE TABLE api_key_requests (
  key_id   TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE DEFERRABLE,
  hour     TEXT COLLATE "C" NOT NULL,
  requests BIGINT NOT NULL,
  PRIMARY KEY (key_id, hour)
);

CREATE INDEX audit_log_org_idx ON audit_log (organization_id, id);
