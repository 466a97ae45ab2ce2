-- As SQLite's 0033: false_positive decisions carried to later screenings
-- of the same subject (see that file).
CREATE TABLE aml_suppressions (
  id              TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE DEFERRABLE,
  environment     TEXT COLLATE "C" NOT NULL CHECK (environment IN ('sandbox', 'live')),
  subject_key     TEXT COLLATE "C" NOT NULL,
  match_id        TEXT COLLATE "C" NOT NULL,
  match_key       TEXT COLLATE "C" NOT NULL,
  decision_id     TEXT COLLATE "C" NOT NULL REFERENCES aml_match_decisions (id) ON DELETE CASCADE DEFERRABLE,
  check_id        TEXT COLLATE "C" NOT NULL REFERENCES aml_checks (id) ON DELETE CASCADE DEFERRABLE,
  fingerprint     TEXT COLLATE "C" NOT NULL,
  created_at      TEXT COLLATE "C" NOT NULL,
  lifted_at       TEXT COLLATE "C",
  lifted_by_type  TEXT COLLATE "C",
  lifted_by_id    TEXT COLLATE "C",
  lift_note       TEXT COLLATE "C"
);

CREATE UNIQUE INDEX aml_suppressions_active_idx ON aml_suppressions (organization_id, environment, subject_key, match_id)
  WHERE lifted_at IS NULL;
