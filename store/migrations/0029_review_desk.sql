-- The reviewer's desk, part 2: the dashboard's figures and round-robin
-- assignment.

-- Final decisions counted per UTC day as they are made: by outcome, by
-- who made them (decided_by as on kyc_requests) and, for a person in the
-- console, which user (reviewer_id; '' otherwise). The dashboard and
-- /metrics read a few rows per day here instead of every request of the
-- window (at 100,000 requests, grouping the requests themselves took
-- hundreds of milliseconds). Counts are not personal data and outlive the
-- requests and users they counted (retention, erasure).
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

-- The time from submission to final decision, per day, as a histogram:
-- seconds rounded down to two significant figures (59 s, 1,200 s,
-- 86,000 s; store.DecisionTimeBucket), so that the median and p90 are
-- read from a few hundred rows, within 5% of the exact figure (the middle
-- of a bucket).
CREATE TABLE kyc_decision_times (
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  day             TEXT NOT NULL,
  seconds         INTEGER NOT NULL CHECK (seconds >= 0),
  decisions       INTEGER NOT NULL,
  PRIMARY KEY (organization_id, environment, day, seconds)
) STRICT;

-- The decisions made before this migration, from the requests and their
-- timelines (a person deciding through the API is named by the key, not a
-- user: reviewer_id stays '').
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
    max(0, CAST(round((julianday(decided_at) - julianday(submitted_at)) * 86400) AS INTEGER)) AS s
  FROM kyc_requests WHERE decided_at IS NOT NULL AND submitted_at IS NOT NULL AND decision IN ('approved', 'rejected')) t
GROUP BY 1, 2, 3, 4;

-- Queue depth, the oldest waiting and the overdue count: awaiting review,
-- by submission time, from the index alone.
CREATE INDEX kyc_requests_org_env_status_submitted_idx ON kyc_requests (organization_id, environment, status, submitted_at);

-- Round-robin assignment (an admin's choice per organization): a request
-- that comes to review is assigned to the next reviewer who is "in", after
-- the one last given a case (review_round_robin_last, a user id).
ALTER TABLE organizations ADD COLUMN review_round_robin INTEGER NOT NULL DEFAULT 0 CHECK (review_round_robin IN (0, 1));
ALTER TABLE organizations ADD COLUMN review_round_robin_last TEXT;
-- Whether a reviewer is in (takes round-robin cases): set by the reviewer
-- on themselves. Out until they say otherwise, so that nobody on leave is
-- given cases.
ALTER TABLE users ADD COLUMN review_available INTEGER NOT NULL DEFAULT 0 CHECK (review_available IN (0, 1));
