-- A check can be re-screened on request (POST /v1/aml-checks/{id}/rescreen),
-- which is how a failed check is retried: its history entry has the
-- trigger 'manual'. SQLite cannot change a CHECK constraint in place, so
-- the history table is rebuilt with the wider one; nothing refers to it.
CREATE TABLE aml_screenings_new (
  id              TEXT PRIMARY KEY,          -- ams_<ulid>
  check_id        TEXT NOT NULL REFERENCES aml_checks (id) ON DELETE CASCADE,
  trigger         TEXT NOT NULL CHECK (trigger IN ('initial', 'daily', 'list_update', 'manual')),
  screened_at     TEXT NOT NULL,
  status          TEXT NOT NULL,
  previous_status TEXT,
  risk_level      TEXT,
  match_count     INTEGER NOT NULL,
  changed         INTEGER NOT NULL CHECK (changed IN (0, 1)),
  detail          TEXT NOT NULL              -- JSON: new/removed matches, list versions
) STRICT;

INSERT INTO aml_screenings_new (id, check_id, trigger, screened_at, status, previous_status, risk_level, match_count, changed, detail)
  SELECT id, check_id, trigger, screened_at, status, previous_status, risk_level, match_count, changed, detail FROM aml_screenings;
DROP TABLE aml_screenings;
ALTER TABLE aml_screenings_new RENAME TO aml_screenings;
CREATE INDEX aml_screenings_check_id_idx ON aml_screenings (check_id, id);
