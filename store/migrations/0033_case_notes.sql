-- The reviewer's desk, part 2: tags and comments on a case, and several
-- reason codes per decision from a list the organization extends.

-- Free tags on a subject. subject_type names what is tagged, so that
-- another kind of case can reuse the table: 'kyc_request' is used today;
-- 'aml_case' (an AML investigation) is allowed already, because widening
-- a CHECK later means rebuilding the table in SQLite. The primary key serves "every case with
-- this tag" (the list filters) newest first.
CREATE TABLE case_tags (
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  subject_type    TEXT NOT NULL CHECK (subject_type IN ('kyc_request', 'aml_case')),
  subject_id      TEXT NOT NULL,
  tag             TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  PRIMARY KEY (organization_id, environment, subject_type, tag, subject_id)
) STRICT;
CREATE INDEX case_tags_subject_idx ON case_tags (subject_id, tag);

-- A comment thread per subject (as case_tags). A comment is a note
-- between colleagues, separate from the decision's reason. author_type
-- is 'user' (a console user) or 'api_key'; mentions are the user ids the
-- comment notified, space-separated.
CREATE TABLE case_comments (
  id              TEXT PRIMARY KEY, -- cmt_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  subject_type    TEXT NOT NULL CHECK (subject_type IN ('kyc_request', 'aml_case')),
  subject_id      TEXT NOT NULL,
  author_type     TEXT NOT NULL CHECK (author_type IN ('user', 'api_key')),
  author_id       TEXT NOT NULL,
  author_name     TEXT NOT NULL,
  body            TEXT NOT NULL,
  mentions        TEXT NOT NULL DEFAULT '',
  created_at      TEXT NOT NULL
) STRICT;
CREATE INDEX case_comments_subject_idx ON case_comments (organization_id, environment, subject_type, subject_id, id);

-- The organization's own decision reason codes, beside the built-in ones
-- (which live in the code and cannot be removed).
CREATE TABLE reason_codes (
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  code            TEXT NOT NULL,
  label           TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  PRIMARY KEY (organization_id, environment, code)
) STRICT;

-- Every reason code of a request, one row each: the engine's (source
-- 'engine', as reason_codes) and the reviewer's decision's ('review'; a
-- code both gave is one row, 'engine'). The primary key serves the list
-- of all verifications' reason filter: with no other filter, its count
-- and its page of ids come from this index alone, newest first.
CREATE TABLE kyc_request_reasons (
  organization_id TEXT NOT NULL,
  environment     TEXT NOT NULL,
  code            TEXT NOT NULL,
  request_id      TEXT NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE,
  source          TEXT NOT NULL CHECK (source IN ('engine', 'review')),
  PRIMARY KEY (organization_id, environment, code, request_id)
) STRICT;
CREATE INDEX kyc_request_reasons_request_idx ON kyc_request_reasons (request_id);

-- A decision's reason codes, space-separated in the order given
-- (review_reason_code stays the first, for the single-code API field).
ALTER TABLE kyc_requests ADD COLUMN review_reason_codes TEXT;
UPDATE kyc_requests SET review_reason_codes = review_reason_code WHERE review_reason_code IS NOT NULL;

-- The existing codes, split on spaces.
WITH RECURSIVE split (request_id, organization_id, environment, code, rest) AS (
  SELECT id, organization_id, environment, '', trim(reason_codes) || ' ' FROM kyc_requests WHERE reason_codes IS NOT NULL AND trim(reason_codes) != ''
  UNION ALL
  SELECT request_id, organization_id, environment, substr(rest, 1, instr(rest, ' ') - 1), ltrim(substr(rest, instr(rest, ' ') + 1))
    FROM split WHERE rest != ''
)
INSERT OR IGNORE INTO kyc_request_reasons (organization_id, environment, code, request_id, source)
  SELECT organization_id, environment, code, request_id, 'engine' FROM split WHERE code != '';
INSERT OR IGNORE INTO kyc_request_reasons (organization_id, environment, code, request_id, source)
  SELECT organization_id, environment, review_reason_code, id, 'review' FROM kyc_requests WHERE review_reason_code IS NOT NULL AND review_reason_code != '';

-- The reason filter reads kyc_request_reasons now.
DROP INDEX kyc_requests_org_env_reasons_idx;
-- "Approved by the engine" (the automation the desk reviews): both
-- columns in one index, so that its count and pages read no row.
CREATE INDEX kyc_requests_org_env_decider_decision_idx ON kyc_requests (organization_id, environment, decided_by, decision, id);
-- "Unassigned (or mine), awaiting review": the desk's most used list, with
-- its count and pages in one index.
CREATE INDEX kyc_requests_org_env_status_assignee_idx ON kyc_requests (organization_id, environment, status, assignee_id, id);
