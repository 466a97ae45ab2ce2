-- As SQLite's 0029 (read its comments): relationship end date, AML retention.
ALTER TABLE applicants ADD COLUMN relationship_end TEXT COLLATE "C";
ALTER TABLE organizations ADD COLUMN retention_aml_years INTEGER CHECK (retention_aml_years BETWEEN 1 AND 50);
ALTER TABLE aml_checks ADD COLUMN erased_at TEXT COLLATE "C";
ALTER TABLE aml_checks ADD COLUMN erased_sha256 TEXT COLLATE "C";
ALTER TABLE aml_screenings ADD COLUMN erased_at TEXT COLLATE "C";
