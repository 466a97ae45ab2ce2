-- The reviewer's desk: whose case it is, who decided it, and how long a
-- case may wait.

-- The assignment: whose case this is. Distinct from a claim (case_claims),
-- the short lock a reviewer takes while working on it: a case stays
-- assigned when its claim expires.
ALTER TABLE kyc_requests ADD COLUMN assignee_id TEXT REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE kyc_requests ADD COLUMN assigned_at TEXT;

-- Who made the final decision: the engine (system), a person in the
-- console (reviewer), or an API client. Kept on the row, from the event
-- that decided, so that the list of all verifications filters on it
-- without reading every timeline.
ALTER TABLE kyc_requests ADD COLUMN decided_by TEXT CHECK (decided_by IN ('engine', 'person', 'api'));
UPDATE kyc_requests SET decided_by = (SELECT CASE e.actor_type WHEN 'system' THEN 'engine' WHEN 'reviewer' THEN 'person' ELSE 'api' END
  FROM kyc_events e WHERE e.request_id = kyc_requests.id AND e.to_status IN ('approved', 'rejected') ORDER BY e.id DESC LIMIT 1)
  WHERE status IN ('approved', 'rejected');

-- How long a submitted request may wait for review, per environment (NULL:
-- no due time).
ALTER TABLE organizations ADD COLUMN review_sla_live_hours INTEGER CHECK (review_sla_live_hours BETWEEN 1 AND 8760);
ALTER TABLE organizations ADD COLUMN review_sla_sandbox_hours INTEGER CHECK (review_sla_sandbox_hours BETWEEN 1 AND 8760);

-- The list of all verifications sorts by creation (the id's ULID: the
-- existing (organization_id, environment, id) index), decision time or
-- risk, and filters by assignee.
CREATE INDEX kyc_requests_org_env_decided_idx ON kyc_requests (organization_id, environment, decided_at, id);
CREATE INDEX kyc_requests_org_env_risk_idx ON kyc_requests (organization_id, environment, risk_score, id);
-- Filters without a status: who decided (with the decision time, for
-- "decided by a reviewer, latest first") and the decision.
CREATE INDEX kyc_requests_org_env_decided_by_idx ON kyc_requests (organization_id, environment, decided_by, decided_at, id);
CREATE INDEX kyc_requests_org_env_decision_idx ON kyc_requests (organization_id, environment, decision, id);
-- A status with the decision time ("rejected, latest first"), and the
-- reason codes beside the id, so that a reason filter reads the index
-- alone (the rows carry the processing result and are large).
CREATE INDEX kyc_requests_org_env_status_decided_idx ON kyc_requests (organization_id, environment, status, decided_at, id);
CREATE INDEX kyc_requests_org_env_reasons_idx ON kyc_requests (organization_id, environment, id, reason_codes);
CREATE INDEX kyc_requests_org_env_assignee_idx ON kyc_requests (organization_id, environment, assignee_id, id);
-- Creation dates: the list then orders by created_at (the same order as
-- the id's, which this index also holds).
CREATE INDEX kyc_requests_org_env_created_idx ON kyc_requests (organization_id, environment, created_at, id);
