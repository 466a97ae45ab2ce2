-- As SQLite's 0029 (read its comments): the decisions counted per day,
-- the queue's index, round-robin assignment.

CREATE TABLE kyc_decision_counts (
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  day             TEXT COLLATE "C" NOT NULL,
  decision        TEXT COLLATE "C" NOT NULL CHECK (decision IN ('approved', 'rejected')),
  decided_by      TEXT COLLATE "C" NOT NULL CHECK (decided_by IN ('engine', 'person', 'api')),
  reviewer_id     TEXT COLLATE "C" NOT NULL DEFAULT '',
  decisions       BIGINT NOT NULL,
  PRIMARY KEY (organization_id, environment, day, decision, decided_by, reviewer_id)
);

CREATE TABLE kyc_decision_times (
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  day             TEXT COLLATE "C" NOT NULL,
  seconds         BIGINT NOT NULL CHECK (seconds >= 0),
  decisions       BIGINT NOT NULL,
  PRIMARY KEY (organization_id, environment, day, seconds)
);

INSERT INTO kyc_decision_counts (organization_id, environment, day, decision, decided_by, reviewer_id, decisions)
SELECT r.organization_id, r.environment, substr(r.decided_at, 1, 10), r.decision, coalesce(r.decided_by, 'api'),
  CASE WHEN r.decided_by = 'person' THEN coalesce((SELECT u.id FROM kyc_events e JOIN users u ON u.id = e.actor_id
    WHERE e.request_id = r.id AND e.to_status IN ('approved', 'rejected') ORDER BY e.id DESC LIMIT 1), '') ELSE '' END,
  count(*)
FROM kyc_requests r WHERE r.decided_at IS NOT NULL AND r.decision IN ('approved', 'rejected')
GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO kyc_decision_times (organization_id, environment, day, seconds, decisions)
SELECT organization_id, environment, day,
  CASE WHEN s < 100 THEN s WHEN s < 1000 THEN s / 10 * 10 WHEN s < 10000 THEN s / 100 * 100 WHEN s < 100000 THEN s / 1000 * 1000
    WHEN s < 1000000 THEN s / 10000 * 10000 WHEN s < 10000000 THEN s / 100000 * 100000 WHEN s < 100000000 THEN s / 1000000 * 1000000
    ELSE s / 10000000 * 10000000 END,
  count(*)
FROM (SELECT organization_id, environment, substr(decided_at, 1, 10) AS day,
    GREATEST(0, CAST(round(EXTRACT(EPOCH FROM (decided_at::timestamptz - submitted_at::timestamptz))) AS BIGINT)) AS s
  FROM kyc_requests WHERE decided_at IS NOT NULL AND submitted_at IS NOT NULL AND decision IN ('approved', 'rejected')) t
GROUP BY 1, 2, 3, 4;

CREATE INDEX kyc_requests_org_env_status_submitted_idx ON kyc_requests (organization_id, environment, status, submitted_at);

ALTER TABLE organizations ADD COLUMN review_round_robin BIGINT NOT NULL DEFAULT 0 CHECK (review_round_robin IN (0, 1));
ALTER TABLE organizations ADD COLUMN review_round_robin_last TEXT COLLATE "C";
ALTER TABLE users ADD COLUMN review_available BIGINT NOT NULL DEFAULT 0 CHECK (review_available IN (0, 1));
