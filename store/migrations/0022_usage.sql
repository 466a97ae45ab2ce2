-- Usage metering: one row per billable live event, written in the same
-- transaction as the event. The key (metric, resource_id) makes a retried
-- job or a replayed request count once: the second insert does nothing.
CREATE TABLE usage_events (
  metric          TEXT NOT NULL CHECK (metric IN ('kyc_requests_submitted', 'aml_checks_created', 'monitoring_rescreens', 'manual_rescreens')),
  resource_id     TEXT NOT NULL,                         -- the KYC request, AML check or screening (history entry) billed
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  occurred_at     TEXT NOT NULL,
  PRIMARY KEY (metric, resource_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX usage_events_org_idx ON usage_events (organization_id, occurred_at);

-- API keys' use, for the console's key list: when and from where a key
-- was last used, and its requests per hour (kept 48 hours). The server
-- counts in memory and writes here every few seconds, not per request.
ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
ALTER TABLE api_keys ADD COLUMN last_used_ip TEXT;

CREATE TABLE api_key_requests (
  key_id   TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  hour     TEXT NOT NULL,                                -- UTC, "2026-11-24T13"
  requests INTEGER NOT NULL,
  PRIMARY KEY (key_id, hour)
) STRICT, WITHOUT ROWID;

-- The console's audit page lists one organization's rows, newest first.
CREATE INDEX audit_log_org_idx ON audit_log (organization_id, id);
