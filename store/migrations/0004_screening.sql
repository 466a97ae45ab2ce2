-- Watch lists and AML checks.
--
-- Each import of a list file is a version. The newest version of a source
-- is active; screening loads the active versions into memory. Superseded
-- versions keep their row (results name the versions they used) but lose
-- their entities.
CREATE TABLE list_versions (
  id           TEXT PRIMARY KEY,             -- lsv_<ulid>
  source       TEXT NOT NULL,                -- operator's name for the list, e.g. ofac-sdn
  kind         TEXT NOT NULL CHECK (kind IN ('sanctions', 'pep', 'adverse_media')),
  format       TEXT NOT NULL,                -- ofac-csv, un-xml, ftm, senzing, csv
  provider     TEXT NOT NULL,                -- shown in results, e.g. 'OFAC SDN'
  sha256       TEXT NOT NULL,                -- of the imported files, in order
  entity_count INTEGER NOT NULL,
  imported_at  TEXT NOT NULL,
  active       INTEGER NOT NULL CHECK (active IN (0, 1))
) STRICT;

CREATE UNIQUE INDEX list_versions_active_source_idx ON list_versions (source) WHERE active = 1;

CREATE TABLE list_entities (
  version_id TEXT NOT NULL REFERENCES list_versions (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  body       BLOB NOT NULL,                  -- JSON of screening.Entity
  PRIMARY KEY (version_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE aml_checks (
  id               TEXT PRIMARY KEY,         -- aml_<ulid>
  public_id        TEXT NOT NULL UNIQUE,     -- aml_<12 base32>
  organization_id  TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment      TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  first_name       TEXT NOT NULL,
  last_name        TEXT NOT NULL,
  dob              TEXT,
  country          TEXT,
  monitoring       INTEGER NOT NULL CHECK (monitoring IN (0, 1)),
  status           TEXT NOT NULL CHECK (status IN ('no_match', 'potential_match', 'failed')),
  risk_level       TEXT CHECK (risk_level IN ('low', 'medium', 'high')),
  match_count      INTEGER NOT NULL,
  threshold        REAL NOT NULL,
  results          TEXT NOT NULL,            -- JSON array of per-list results
  last_screened_at TEXT NOT NULL,
  next_screen_at   TEXT,                     -- set while monitoring is on
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
) STRICT;

CREATE INDEX aml_checks_org_env_id_idx ON aml_checks (organization_id, environment, id);
CREATE INDEX aml_checks_org_env_status_id_idx ON aml_checks (organization_id, environment, status, id);
-- The monitoring job's queue: due checks in due order.
CREATE INDEX aml_checks_next_screen_at_idx ON aml_checks (next_screen_at) WHERE next_screen_at IS NOT NULL;

-- The monitoring history: the first screening and every re-screen.
CREATE TABLE aml_screenings (
  id              TEXT PRIMARY KEY,          -- ams_<ulid>
  check_id        TEXT NOT NULL REFERENCES aml_checks (id) ON DELETE CASCADE,
  trigger         TEXT NOT NULL CHECK (trigger IN ('initial', 'daily', 'list_update')),
  screened_at     TEXT NOT NULL,
  status          TEXT NOT NULL,
  previous_status TEXT,
  risk_level      TEXT,
  match_count     INTEGER NOT NULL,
  changed         INTEGER NOT NULL CHECK (changed IN (0, 1)),
  detail          TEXT NOT NULL              -- JSON: new/removed matches, list versions
) STRICT;

CREATE INDEX aml_screenings_check_id_idx ON aml_screenings (check_id, id);

-- Per-organization AML match threshold; NULL means the documented default.
ALTER TABLE organizations ADD COLUMN aml_threshold REAL CHECK (aml_threshold > 0 AND aml_threshold <= 1);
