-- As SQLite's 0030 (read its comments): tags and comments on a case, the
-- organization's reason codes, and every reason code of a request.
CREATE TABLE case_tags (
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  subject_type    TEXT COLLATE "C" NOT NULL CHECK (subject_type IN ('kyc_request', 'aml_case')),
  subject_id      TEXT COLLATE "C" NOT NULL,
  tag             TEXT COLLATE "C" NOT NULL,
  created_at      TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (organization_id, environment, subject_type, tag, subject_id)
);
CREATE INDEX case_tags_subject_idx ON case_tags (subject_id, tag);

CREATE TABLE case_comments (
  id              TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  subject_type    TEXT COLLATE "C" NOT NULL CHECK (subject_type IN ('kyc_request', 'aml_case')),
  subject_id      TEXT COLLATE "C" NOT NULL,
  author_type     TEXT COLLATE "C" NOT NULL CHECK (author_type IN ('user', 'api_key')),
  author_id       TEXT COLLATE "C" NOT NULL,
  author_name     TEXT COLLATE "C" NOT NULL,
  body            TEXT COLLATE "C" NOT NULL,
  mentions        TEXT COLLATE "C" NOT NULL DEFAULT '',
  created_at      TEXT COLLATE "C" NOT NULL
);
CREATE INDEX case_comments_subject_idx ON case_comments (organization_id, environment, subject_type, subject_id, id);

CREATE TABLE reason_codes (
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  code            TEXT COLLATE "C" NOT NULL,
  label           TEXT COLLATE "C" NOT NULL,
  created_at      TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (organization_id, environment, code)
);

CREATE TABLE kyc_request_reasons (
  organization_id TEXT COLLATE "C" NOT NULL,
  environment     TEXT COLLATE "C" NOT NULL,
  code            TEXT COLLATE "C" NOT NULL,
  request_id      TEXT COLLATE "C" NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE DEFERRABLE,
  source          TEXT COLLATE "C" NOT NULL CHECK (source IN ('engine', 'review')),
  PRIMARY KEY (organization_id, environment, code, request_id)
);
CREATE INDEX kyc_request_reasons_request_idx ON kyc_request_reasons (request_id);

ALTER TABLE kyc_requests ADD COLUMN review_reason_codes TEXT COLLATE "C";
UPDATE kyc_requests SET review_reason_codes = review_reason_code WHERE review_reason_code IS NOT NULL;

INSERT INTO kyc_request_reasons (organization_id, environment, code, request_id, source)
  SELECT DISTINCT organization_id, environment, c, id, 'engine'
    FROM kyc_requests, unnest(string_to_array(trim(reason_codes), ' ')) AS c
    WHERE reason_codes IS NOT NULL AND c != ''
  ON CONFLICT DO NOTHING;
INSERT INTO kyc_request_reasons (organization_id, environment, code, request_id, source)
  SELECT organization_id, environment, review_reason_code, id, 'review' FROM kyc_requests
    WHERE review_reason_code IS NOT NULL AND review_reason_code != ''
  ON CONFLICT DO NOTHING;

DROP INDEX kyc_requests_org_env_reasons_idx;
-- As SQLite's: who decided and the decision in one index.
CREATE INDEX kyc_requests_org_env_decider_decision_idx ON kyc_requests (organization_id, environment, decided_by, decision, id);
-- "Unassigned (or mine), awaiting review": the desk's most used list, with
-- its count and pages in one index.
CREATE INDEX kyc_requests_org_env_status_assignee_idx ON kyc_requests (organization_id, environment, status, assignee_id, id);
