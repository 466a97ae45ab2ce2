-- Personal data lifecycle, part 2 (issue 28).
--
-- relationship_end: the date (YYYY-MM-DD) the integrator's business
-- relationship with the applicant ended, set through the API
-- (relationshipEndDate). Decided live data is kept DecidedYears after the
-- later of the last decision and this date (AMLD art. 40: five years after
-- the relationship ends); NULL counts from the decision alone.
ALTER TABLE applicants ADD COLUMN relationship_end TEXT;

-- Retention of AML checks and their monitoring history (NULL: the default,
-- kyc.DefaultRetention.AMLYears). A live check that is not monitored is
-- erased retention_aml_years after its last screening; monitoring history
-- rows older than that are erased from checks still monitored. Sandbox
-- checks follow retention_sandbox_days.
ALTER TABLE organizations ADD COLUMN retention_aml_years INTEGER CHECK (retention_aml_years BETWEEN 1 AND 50);

-- The tombstone of an erased AML check: the row stays (ids, dates, status,
-- risk level, match count, review status) with the subject's name, date of
-- birth, country and the per-list results emptied; erased_at says when and
-- erased_sha256 is the SHA-256 of the erased subject fields.
ALTER TABLE aml_checks ADD COLUMN erased_at TEXT;
ALTER TABLE aml_checks ADD COLUMN erased_sha256 TEXT;
-- A monitoring history row whose detail (matches added and removed) was
-- erased: trigger, dates, statuses and counts stay.
ALTER TABLE aml_screenings ADD COLUMN erased_at TEXT;

-- The daily retention run's look-ups (store/amlretention.go): checks not
-- yet erased by last screening, and history rows not yet erased by when
-- they were screened, so that each batch reads only what it erases rather
-- than the whole history again.
CREATE INDEX aml_checks_retention_idx ON aml_checks (organization_id, environment, last_screened_at)
  WHERE erased_at IS NULL;
CREATE INDEX aml_screenings_retention_idx ON aml_screenings (screened_at, id) WHERE erased_at IS NULL;
