-- As SQLite's 0018: a check can be re-screened on request, with the
-- history trigger 'manual'. PostgreSQL changes the CHECK in place.
ALTER TABLE aml_screenings DROP CONSTRAINT aml_screenings_trigger_check;
ALTER TABLE aml_screenings ADD CONSTRAINT aml_screenings_trigger_check
  CHECK (trigger IN ('initial', 'daily', 'list_update', 'manual'));
