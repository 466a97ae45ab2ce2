-- As SQLite's 0029 (read its comments): relationship end date, AML retention.
ALTER TABLE applicants ADD COLUMN relationship_end TEXT COLLATE "C";
ALTER TABLE organizations ADD COLUMN retention_aml_years INTEGER CHECK (retention_aml_years BETWEEN 1 AND 50);
ALTER TABLE aml_checks ADD COLUMN erased_at TEXT COLLATE "C";
ALTER TABLE aml_checks ADD COLUMN erased_sha256 TEXT COLLATE "C";
ALTER TABLE aml_screenings ADD COLUMN erased_at TEXT COLLATE "C";
CREATE INDEX aml_checks_retention_idx ON aml_checks (organization_id, environment, last_screened_at)
  WHERE erased_at IS NULL;
CREATE INDEX aml_screenings_retention_idx ON aml_screenings (screened_at, id) WHERE erased_at IS NULL;
