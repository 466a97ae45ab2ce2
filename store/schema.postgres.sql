-- The current PostgreSQL schema, generated from migrations/postgres/ by
-- `KYCD_TEST_POSTGRES=postgres://… go test ./store -run TestSchemaPostgres -update`.
-- Read it; change the schema with a new numbered migration for both engines.
-- kycd_schema version = 34

CREATE OR REPLACE FUNCTION kycd_refuse()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'restrict_violation';
END
$function$;

CREATE TABLE aml_batch_rows (
  batch_id text COLLATE "C" NOT NULL,
  row_index bigint NOT NULL,
  subject text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  check_id text COLLATE "C",
  errors text COLLATE "C",
  CONSTRAINT aml_batch_rows_batch_id_fkey FOREIGN KEY (batch_id) REFERENCES aml_batches(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT aml_batch_rows_check_id_fkey FOREIGN KEY (check_id) REFERENCES aml_checks(id) ON DELETE SET NULL DEFERRABLE,
  CONSTRAINT aml_batch_rows_pkey PRIMARY KEY (batch_id, row_index),
  CONSTRAINT aml_batch_rows_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'screened'::text, 'failed'::text])))
);

CREATE TABLE aml_batches (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  monitoring bigint NOT NULL,
  total bigint NOT NULL,
  screened bigint NOT NULL DEFAULT 0,
  failed bigint NOT NULL DEFAULT 0,
  potential_matches bigint NOT NULL DEFAULT 0,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  completed_at text COLLATE "C",
  CONSTRAINT aml_batches_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT aml_batches_monitoring_check CHECK ((monitoring = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT aml_batches_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT aml_batches_pkey PRIMARY KEY (id),
  CONSTRAINT aml_batches_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'completed'::text])))
);

CREATE TABLE aml_case_entries (
  id text COLLATE "C" NOT NULL,
  case_id text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  text text COLLATE "C" NOT NULL,
  actor_type text COLLATE "C" NOT NULL,
  actor_id text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  CONSTRAINT aml_case_entries_case_id_fkey FOREIGN KEY (case_id) REFERENCES aml_cases(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT aml_case_entries_kind_check CHECK ((kind = ANY (ARRAY['opened'::text, 'confirmed'::text, 'note'::text, 'assigned'::text, 'due'::text, 'sar'::text, 'closed'::text, 'reopened'::text]))),
  CONSTRAINT aml_case_entries_pkey PRIMARY KEY (id)
);

CREATE TABLE aml_cases (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  check_id text COLLATE "C" NOT NULL,
  match_id text COLLATE "C" NOT NULL,
  match_key text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  outcome text COLLATE "C",
  assignee_id text COLLATE "C",
  due_at text COLLATE "C",
  opened_at text COLLATE "C" NOT NULL,
  closed_at text COLLATE "C",
  updated_at text COLLATE "C" NOT NULL,
  sar_reference text COLLATE "C",
  sar_filed_on text COLLATE "C",
  sar_recorded_at text COLLATE "C",
  sar_actor_type text COLLATE "C",
  sar_actor_id text COLLATE "C",
  sar_file_name text COLLATE "C",
  sar_file_type text COLLATE "C",
  sar_file_size bigint,
  sar_file_sha256 text COLLATE "C",
  sar_file bytea,
  sar_key_id bigint,
  CONSTRAINT aml_cases_assignee_id_fkey FOREIGN KEY (assignee_id) REFERENCES users(id) ON DELETE SET NULL DEFERRABLE,
  CONSTRAINT aml_cases_check CHECK (((status = 'closed'::text) = ((outcome IS NOT NULL) AND (closed_at IS NOT NULL)))),
  CONSTRAINT aml_cases_check_id_fkey FOREIGN KEY (check_id) REFERENCES aml_checks(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT aml_cases_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT aml_cases_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT aml_cases_outcome_check CHECK ((outcome = ANY (ARRAY['relationship_refused'::text, 'relationship_exited'::text, 'relationship_continued_with_measures'::text, 'reported'::text, 'false_positive_after_investigation'::text]))),
  CONSTRAINT aml_cases_pkey PRIMARY KEY (id),
  CONSTRAINT aml_cases_status_check CHECK ((status = ANY (ARRAY['open'::text, 'closed'::text])))
);

CREATE TABLE aml_checks (
  id text COLLATE "C" NOT NULL,
  public_id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  first_name text COLLATE "C" NOT NULL,
  last_name text COLLATE "C" NOT NULL,
  dob text COLLATE "C",
  country text COLLATE "C",
  monitoring bigint NOT NULL,
  status text COLLATE "C" NOT NULL,
  risk_level text COLLATE "C",
  match_count bigint NOT NULL,
  threshold double precision NOT NULL,
  results text COLLATE "C" NOT NULL,
  last_screened_at text COLLATE "C" NOT NULL,
  next_screen_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  review_status text COLLATE "C" NOT NULL DEFAULT 'not_required'::text,
  resolved_at text COLLATE "C",
  erased_at text COLLATE "C",
  erased_sha256 text COLLATE "C",
  CONSTRAINT aml_checks_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT aml_checks_monitoring_check CHECK ((monitoring = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT aml_checks_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT aml_checks_pkey PRIMARY KEY (id),
  CONSTRAINT aml_checks_public_id_key UNIQUE (public_id),
  CONSTRAINT aml_checks_review_status_check CHECK ((review_status = ANY (ARRAY['not_required'::text, 'pending'::text, 'resolved'::text]))),
  CONSTRAINT aml_checks_risk_level_check CHECK ((risk_level = ANY (ARRAY['low'::text, 'medium'::text, 'high'::text]))),
  CONSTRAINT aml_checks_status_check CHECK ((status = ANY (ARRAY['no_match'::text, 'potential_match'::text, 'failed'::text])))
);

CREATE TABLE aml_match_decisions (
  id text COLLATE "C" NOT NULL,
  check_id text COLLATE "C" NOT NULL,
  match_id text COLLATE "C" NOT NULL,
  match_key text COLLATE "C" NOT NULL,
  decision text COLLATE "C" NOT NULL,
  note text COLLATE "C" NOT NULL,
  entity text COLLATE "C" NOT NULL,
  actor_type text COLLATE "C" NOT NULL,
  actor_id text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  CONSTRAINT aml_match_decisions_check_id_fkey FOREIGN KEY (check_id) REFERENCES aml_checks(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT aml_match_decisions_decision_check CHECK ((decision = ANY (ARRAY['false_positive'::text, 'confirmed'::text]))),
  CONSTRAINT aml_match_decisions_pkey PRIMARY KEY (id)
);

CREATE TABLE aml_screenings (
  id text COLLATE "C" NOT NULL,
  check_id text COLLATE "C" NOT NULL,
  trigger text COLLATE "C" NOT NULL,
  screened_at text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  previous_status text COLLATE "C",
  risk_level text COLLATE "C",
  match_count bigint NOT NULL,
  changed bigint NOT NULL,
  detail text COLLATE "C" NOT NULL,
  erased_at text COLLATE "C",
  CONSTRAINT aml_screenings_changed_check CHECK ((changed = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT aml_screenings_check_id_fkey FOREIGN KEY (check_id) REFERENCES aml_checks(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT aml_screenings_pkey PRIMARY KEY (id),
  CONSTRAINT aml_screenings_trigger_check CHECK ((trigger = ANY (ARRAY['initial'::text, 'daily'::text, 'list_update'::text, 'manual'::text])))
);

CREATE TABLE aml_suppressions (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  subject_key text COLLATE "C" NOT NULL,
  match_id text COLLATE "C" NOT NULL,
  match_key text COLLATE "C" NOT NULL,
  decision_id text COLLATE "C" NOT NULL,
  check_id text COLLATE "C" NOT NULL,
  fingerprint text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  lifted_at text COLLATE "C",
  lifted_by_type text COLLATE "C",
  lifted_by_id text COLLATE "C",
  lift_note text COLLATE "C",
  CONSTRAINT aml_suppressions_check_id_fkey FOREIGN KEY (check_id) REFERENCES aml_checks(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT aml_suppressions_decision_id_fkey FOREIGN KEY (decision_id) REFERENCES aml_match_decisions(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT aml_suppressions_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT aml_suppressions_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT aml_suppressions_pkey PRIMARY KEY (id)
);

CREATE TABLE api_key_requests (
  key_id text COLLATE "C" NOT NULL,
  hour text COLLATE "C" NOT NULL,
  requests bigint NOT NULL,
  CONSTRAINT api_key_requests_key_id_fkey FOREIGN KEY (key_id) REFERENCES api_keys(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT api_key_requests_pkey PRIMARY KEY (key_id, hour)
);

CREATE TABLE api_keys (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  tier text COLLATE "C" NOT NULL,
  rpm_override bigint,
  name text COLLATE "C" NOT NULL DEFAULT ''::text,
  secret_hash bytea NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  revoked_at text COLLATE "C",
  last_used_at text COLLATE "C",
  last_used_ip text COLLATE "C",
  CONSTRAINT api_keys_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT api_keys_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT api_keys_pkey PRIMARY KEY (id),
  CONSTRAINT api_keys_rpm_override_check CHECK ((rpm_override >= 0)),
  CONSTRAINT api_keys_tier_check CHECK ((tier = ANY (ARRAY['free'::text, 'starter'::text, 'pro'::text])))
);

CREATE TABLE applicants (
  id text COLLATE "C" NOT NULL,
  public_id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  first_name text COLLATE "C" NOT NULL,
  last_name text COLLATE "C" NOT NULL,
  email text COLLATE "C",
  phone text COLLATE "C",
  dob text COLLATE "C",
  country text COLLATE "C",
  external_ref text COLLATE "C",
  metadata text COLLATE "C" NOT NULL DEFAULT '{}'::text,
  status text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  archived_at text COLLATE "C",
  erased_at text COLLATE "C",
  erasure_scheduled_at text COLLATE "C",
  legal_hold_reason text,
  legal_hold_at text COLLATE "C",
  relationship_end text COLLATE "C",
  CONSTRAINT applicants_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT applicants_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT applicants_pkey PRIMARY KEY (id),
  CONSTRAINT applicants_public_id_key UNIQUE (public_id),
  CONSTRAINT applicants_status_check CHECK ((status = ANY (ARRAY['active'::text, 'archived'::text])))
);

CREATE TABLE audit_head (
  id bigint NOT NULL,
  mac_from bigint NOT NULL,
  row_count bigint NOT NULL,
  head_hash text COLLATE "C" NOT NULL,
  signed_since text COLLATE "C",
  signed_at text COLLATE "C",
  mac text COLLATE "C",
  CONSTRAINT audit_head_id_check CHECK ((id = 1)),
  CONSTRAINT audit_head_pkey PRIMARY KEY (id)
);

CREATE TABLE audit_log (
  id bigint NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  resource_type text COLLATE "C" NOT NULL,
  resource_id text COLLATE "C" NOT NULL,
  action text COLLATE "C" NOT NULL,
  actor_type text COLLATE "C" NOT NULL,
  actor_id text COLLATE "C",
  from_status text COLLATE "C",
  to_status text COLLATE "C",
  reason text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  prev_hash text COLLATE "C",
  content_hash text COLLATE "C",
  CONSTRAINT audit_log_pkey PRIMARY KEY (id)
);

CREATE TABLE callback_secrets (
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  secret bytea NOT NULL,
  previous_secret bytea,
  previous_secret_until text COLLATE "C",
  dual_sign bigint NOT NULL DEFAULT 0,
  created_at text COLLATE "C" NOT NULL,
  rotated_at text COLLATE "C",
  CONSTRAINT callback_secrets_dual_sign_check CHECK ((dual_sign = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT callback_secrets_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT callback_secrets_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT callback_secrets_pkey PRIMARY KEY (organization_id, environment)
);

CREATE TABLE case_claims (
  request_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  claimed_at text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  CONSTRAINT case_claims_pkey PRIMARY KEY (request_id),
  CONSTRAINT case_claims_request_id_fkey FOREIGN KEY (request_id) REFERENCES kyc_requests(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT case_claims_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE DEFERRABLE
);

CREATE TABLE case_comments (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  subject_type text COLLATE "C" NOT NULL,
  subject_id text COLLATE "C" NOT NULL,
  author_type text COLLATE "C" NOT NULL,
  author_id text COLLATE "C" NOT NULL,
  author_name text COLLATE "C" NOT NULL,
  body text COLLATE "C" NOT NULL,
  mentions text COLLATE "C" NOT NULL DEFAULT ''::text,
  created_at text COLLATE "C" NOT NULL,
  CONSTRAINT case_comments_author_type_check CHECK ((author_type = ANY (ARRAY['user'::text, 'api_key'::text]))),
  CONSTRAINT case_comments_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT case_comments_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT case_comments_pkey PRIMARY KEY (id),
  CONSTRAINT case_comments_subject_type_check CHECK ((subject_type = ANY (ARRAY['kyc_request'::text, 'aml_case'::text])))
);

CREATE TABLE case_tags (
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  subject_type text COLLATE "C" NOT NULL,
  subject_id text COLLATE "C" NOT NULL,
  tag text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  CONSTRAINT case_tags_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT case_tags_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT case_tags_pkey PRIMARY KEY (organization_id, environment, subject_type, tag, subject_id),
  CONSTRAINT case_tags_subject_type_check CHECK ((subject_type = ANY (ARRAY['kyc_request'::text, 'aml_case'::text])))
);

CREATE TABLE console_sessions (
  id_hash bytea NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  stage text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  last_seen_at text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  ip text COLLATE "C" NOT NULL,
  user_agent text COLLATE "C" NOT NULL,
  CONSTRAINT console_sessions_pkey PRIMARY KEY (id_hash),
  CONSTRAINT console_sessions_stage_check CHECK ((stage = ANY (ARRAY['totp'::text, 'enrol'::text, 'full'::text]))),
  CONSTRAINT console_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE DEFERRABLE
);

CREATE TABLE data_keys (
  id bigint NOT NULL,
  wrapped bytea NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  active bigint NOT NULL DEFAULT 0,
  CONSTRAINT data_keys_active_check CHECK ((active = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT data_keys_pkey PRIMARY KEY (id)
);

CREATE TABLE document_sessions (
  id text COLLATE "C" NOT NULL,
  request_id text COLLATE "C" NOT NULL,
  nonce_sha256 text COLLATE "C" NOT NULL,
  opened_at text COLLATE "C" NOT NULL,
  deadline_at text COLLATE "C" NOT NULL,
  user_agent text COLLATE "C" NOT NULL,
  ip text COLLATE "C" NOT NULL,
  attempt bigint NOT NULL DEFAULT 1,
  CONSTRAINT document_sessions_attempt_check CHECK ((attempt >= 1)),
  CONSTRAINT document_sessions_nonce_sha256_key UNIQUE (nonce_sha256),
  CONSTRAINT document_sessions_pkey PRIMARY KEY (id),
  CONSTRAINT document_sessions_request_id_fkey FOREIGN KEY (request_id) REFERENCES kyc_requests(id) ON DELETE CASCADE DEFERRABLE
);

CREATE TABLE email_outbox (
  id bigint GENERATED BY DEFAULT AS IDENTITY NOT NULL,
  organization_id text COLLATE "C",
  to_address text COLLATE "C" NOT NULL,
  subject text COLLATE "C" NOT NULL,
  body text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  sent_at text COLLATE "C",
  error text COLLATE "C",
  html_body text COLLATE "C",
  from_name text COLLATE "C",
  reply_to text COLLATE "C",
  logo_sha256 text COLLATE "C",
  body_key_id bigint,
  expired_at text COLLATE "C",
  CONSTRAINT email_outbox_body_key_id_fkey FOREIGN KEY (body_key_id) REFERENCES data_keys(id) DEFERRABLE,
  CONSTRAINT email_outbox_logo_sha256_fkey FOREIGN KEY (logo_sha256) REFERENCES organization_logos(sha256) DEFERRABLE,
  CONSTRAINT email_outbox_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT email_outbox_pkey PRIMARY KEY (id)
);

CREATE TABLE erasures (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  applicant_id text COLLATE "C" NOT NULL,
  rule text COLLATE "C" NOT NULL,
  actor_type text COLLATE "C" NOT NULL,
  actor_id text COLLATE "C",
  reason text,
  erased_at text COLLATE "C" NOT NULL,
  receipt text NOT NULL,
  CONSTRAINT erasures_applicant_id_fkey FOREIGN KEY (applicant_id) REFERENCES applicants(id),
  CONSTRAINT erasures_applicant_id_key UNIQUE (applicant_id),
  CONSTRAINT erasures_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT erasures_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE,
  CONSTRAINT erasures_pkey PRIMARY KEY (id)
);

CREATE TABLE events (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  resource_id text COLLATE "C" NOT NULL,
  payload bytea NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  CONSTRAINT events_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT events_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT events_pkey PRIMARY KEY (id)
);

CREATE TABLE face_descriptors (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  applicant_id text COLLATE "C" NOT NULL,
  request_id text COLLATE "C" NOT NULL,
  capture_id text COLLATE "C" NOT NULL,
  key_id bigint NOT NULL,
  descriptor bytea NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  CONSTRAINT face_descriptors_applicant_id_fkey FOREIGN KEY (applicant_id) REFERENCES applicants(id) DEFERRABLE,
  CONSTRAINT face_descriptors_capture_id_fkey FOREIGN KEY (capture_id) REFERENCES kyc_captures(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT face_descriptors_capture_id_key UNIQUE (capture_id),
  CONSTRAINT face_descriptors_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT face_descriptors_key_id_fkey FOREIGN KEY (key_id) REFERENCES data_keys(id) DEFERRABLE,
  CONSTRAINT face_descriptors_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT face_descriptors_pkey PRIMARY KEY (id),
  CONSTRAINT face_descriptors_request_id_fkey FOREIGN KEY (request_id) REFERENCES kyc_requests(id) ON DELETE CASCADE DEFERRABLE
);

CREATE TABLE idempotency_keys (
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  request_hash bytea NOT NULL,
  status_code bigint NOT NULL,
  response_body bytea NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  response_key_id bigint,
  CONSTRAINT idempotency_keys_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT idempotency_keys_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT idempotency_keys_pkey PRIMARY KEY (organization_id, environment, key),
  CONSTRAINT idempotency_keys_response_key_id_fkey FOREIGN KEY (response_key_id) REFERENCES data_keys(id) DEFERRABLE
);

CREATE TABLE jobs (
  id bigint GENERATED BY DEFAULT AS IDENTITY NOT NULL,
  kind text COLLATE "C" NOT NULL,
  payload bytea NOT NULL,
  state text COLLATE "C" NOT NULL,
  run_at text COLLATE "C" NOT NULL,
  attempts bigint NOT NULL DEFAULT 0,
  max_attempts bigint NOT NULL,
  last_error text COLLATE "C",
  dedupe_key text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  CONSTRAINT jobs_dedupe_key_key UNIQUE (dedupe_key),
  CONSTRAINT jobs_max_attempts_check CHECK ((max_attempts >= 1)),
  CONSTRAINT jobs_pkey PRIMARY KEY (id),
  CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'running'::text, 'done'::text, 'dead'::text])))
);

CREATE TABLE key_store (
  id integer NOT NULL,
  store_id text COLLATE "C" NOT NULL,
  CONSTRAINT key_store_id_check CHECK ((id = 1)),
  CONSTRAINT key_store_pkey PRIMARY KEY (id)
);

CREATE TABLE kyc_captures (
  id text COLLATE "C" NOT NULL,
  request_id text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  side text COLLATE "C",
  document_type text COLLATE "C",
  country text COLLATE "C",
  content_type text COLLATE "C" NOT NULL,
  size bigint NOT NULL,
  width bigint NOT NULL,
  height bigint NOT NULL,
  sha256 text COLLATE "C" NOT NULL,
  source_sha256 text COLLATE "C" NOT NULL,
  method text COLLATE "C" NOT NULL,
  user_agent text COLLATE "C" NOT NULL,
  ip text COLLATE "C" NOT NULL,
  meta text COLLATE "C" NOT NULL DEFAULT '{}'::text,
  data bytea NOT NULL,
  captured_at text COLLATE "C" NOT NULL,
  key_id bigint,
  session_id text COLLATE "C",
  document_session_id text COLLATE "C",
  attempt bigint NOT NULL DEFAULT 1,
  CONSTRAINT kyc_captures_attempt_check CHECK ((attempt >= 1)),
  CONSTRAINT kyc_captures_document_session_id_fkey FOREIGN KEY (document_session_id) REFERENCES document_sessions(id) DEFERRABLE,
  CONSTRAINT kyc_captures_key_id_fkey FOREIGN KEY (key_id) REFERENCES data_keys(id) DEFERRABLE,
  CONSTRAINT kyc_captures_kind_check CHECK ((kind = ANY (ARRAY['document'::text, 'selfie'::text]))),
  CONSTRAINT kyc_captures_method_check CHECK ((method = ANY (ARRAY['camera'::text, 'upload'::text]))),
  CONSTRAINT kyc_captures_pkey PRIMARY KEY (id),
  CONSTRAINT kyc_captures_request_id_fkey FOREIGN KEY (request_id) REFERENCES kyc_requests(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT kyc_captures_session_id_fkey FOREIGN KEY (session_id) REFERENCES liveness_sessions(id) DEFERRABLE,
  CONSTRAINT kyc_captures_side_check CHECK ((side = ANY (ARRAY['front'::text, 'back'::text])))
);

CREATE TABLE kyc_decision_counts (
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  day text COLLATE "C" NOT NULL,
  decision text COLLATE "C" NOT NULL,
  decided_by text COLLATE "C" NOT NULL,
  reviewer_id text COLLATE "C" NOT NULL DEFAULT ''::text,
  decisions bigint NOT NULL,
  CONSTRAINT kyc_decision_counts_decided_by_check CHECK ((decided_by = ANY (ARRAY['engine'::text, 'person'::text, 'api'::text]))),
  CONSTRAINT kyc_decision_counts_decision_check CHECK ((decision = ANY (ARRAY['approved'::text, 'rejected'::text]))),
  CONSTRAINT kyc_decision_counts_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT kyc_decision_counts_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT kyc_decision_counts_pkey PRIMARY KEY (organization_id, environment, day, decision, decided_by, reviewer_id)
);

CREATE TABLE kyc_decision_times (
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  day text COLLATE "C" NOT NULL,
  seconds bigint NOT NULL,
  decisions bigint NOT NULL,
  CONSTRAINT kyc_decision_times_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT kyc_decision_times_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT kyc_decision_times_pkey PRIMARY KEY (organization_id, environment, day, seconds),
  CONSTRAINT kyc_decision_times_seconds_check CHECK ((seconds >= 0))
);

CREATE TABLE kyc_events (
  id text COLLATE "C" NOT NULL,
  request_id text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  from_status text COLLATE "C",
  to_status text COLLATE "C" NOT NULL,
  decision text COLLATE "C" NOT NULL,
  actor_type text COLLATE "C" NOT NULL,
  actor_id text COLLATE "C",
  reason text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  CONSTRAINT kyc_events_actor_type_check CHECK ((actor_type = ANY (ARRAY['api_key'::text, 'applicant'::text, 'system'::text, 'reviewer'::text]))),
  CONSTRAINT kyc_events_pkey PRIMARY KEY (id),
  CONSTRAINT kyc_events_request_id_fkey FOREIGN KEY (request_id) REFERENCES kyc_requests(id) ON DELETE CASCADE DEFERRABLE
);

CREATE TABLE kyc_request_reasons (
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  code text COLLATE "C" NOT NULL,
  request_id text COLLATE "C" NOT NULL,
  source text COLLATE "C" NOT NULL,
  CONSTRAINT kyc_request_reasons_pkey PRIMARY KEY (organization_id, environment, code, request_id),
  CONSTRAINT kyc_request_reasons_request_id_fkey FOREIGN KEY (request_id) REFERENCES kyc_requests(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT kyc_request_reasons_source_check CHECK ((source = ANY (ARRAY['engine'::text, 'review'::text])))
);

CREATE TABLE kyc_requests (
  id text COLLATE "C" NOT NULL,
  public_id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  applicant_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  decision text COLLATE "C" NOT NULL,
  decision_reason text COLLATE "C",
  risk_score double precision,
  workflow_type text COLLATE "C" NOT NULL,
  callback_url text COLLATE "C",
  redirect_url text COLLATE "C",
  external_ref text COLLATE "C",
  metadata text COLLATE "C" NOT NULL DEFAULT '{}'::text,
  portal_token_hash bytea NOT NULL,
  portal_expires_at text COLLATE "C" NOT NULL,
  automation_decision text COLLATE "C",
  automation_confidence double precision,
  processing_result text COLLATE "C",
  screenings text COLLATE "C",
  reviewer_note text COLLATE "C",
  submitted_at text COLLATE "C",
  decided_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  document_data text COLLATE "C",
  document_number text COLLATE "C",
  pending_review text COLLATE "C",
  review_reason_code text COLLATE "C",
  document_key_id bigint,
  locale text COLLATE "C",
  portal_token_sealed bytea,
  portal_token_key_id bigint,
  portal_opened_at text COLLATE "C",
  reason_codes text COLLATE "C",
  document_number_read text COLLATE "C",
  assignee_id text COLLATE "C",
  assigned_at text COLLATE "C",
  decided_by text COLLATE "C",
  attempt bigint NOT NULL DEFAULT 1,
  overdue_at text COLLATE "C",
  escalated_at text COLLATE "C",
  escalated_by text COLLATE "C",
  escalation_reason text COLLATE "C",
  review_reason_codes text COLLATE "C",
  address_read text COLLATE "C",
  address_read_key_id bigint,
  CONSTRAINT kyc_requests_address_read_key_id_fkey FOREIGN KEY (address_read_key_id) REFERENCES data_keys(id) DEFERRABLE,
  CONSTRAINT kyc_requests_applicant_id_fkey FOREIGN KEY (applicant_id) REFERENCES applicants(id) DEFERRABLE,
  CONSTRAINT kyc_requests_assignee_id_fkey FOREIGN KEY (assignee_id) REFERENCES users(id) ON DELETE SET NULL DEFERRABLE,
  CONSTRAINT kyc_requests_attempt_check CHECK ((attempt >= 1)),
  CONSTRAINT kyc_requests_decided_by_check CHECK ((decided_by = ANY (ARRAY['engine'::text, 'person'::text, 'api'::text]))),
  CONSTRAINT kyc_requests_decision_check CHECK ((decision = ANY (ARRAY['pending'::text, 'approved'::text, 'rejected'::text, 'none'::text]))),
  CONSTRAINT kyc_requests_document_key_id_fkey FOREIGN KEY (document_key_id) REFERENCES data_keys(id) DEFERRABLE,
  CONSTRAINT kyc_requests_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT kyc_requests_escalated_by_fkey FOREIGN KEY (escalated_by) REFERENCES users(id) ON DELETE SET NULL DEFERRABLE,
  CONSTRAINT kyc_requests_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT kyc_requests_pkey PRIMARY KEY (id),
  CONSTRAINT kyc_requests_portal_token_hash_key UNIQUE (portal_token_hash),
  CONSTRAINT kyc_requests_portal_token_key_id_fkey FOREIGN KEY (portal_token_key_id) REFERENCES data_keys(id) DEFERRABLE,
  CONSTRAINT kyc_requests_public_id_key UNIQUE (public_id),
  CONSTRAINT kyc_requests_status_check CHECK ((status = ANY (ARRAY['link_generated'::text, 'in_progress'::text, 'submitted'::text, 'processing'::text, 'approved'::text, 'rejected'::text, 'awaiting_review'::text, 'expired'::text, 'cancelled'::text, 'failed'::text, 'resubmission_requested'::text])))
);

CREATE TABLE kyc_resubmissions (
  id text COLLATE "C" NOT NULL,
  request_id text COLLATE "C" NOT NULL,
  attempt bigint NOT NULL,
  step text COLLATE "C" NOT NULL,
  message text NOT NULL,
  state text COLLATE "C" NOT NULL,
  actor_type text COLLATE "C" NOT NULL,
  actor_id text COLLATE "C",
  prior_automation_decision text COLLATE "C",
  prior_decision_reason text,
  prior_risk_score double precision,
  prior_reason_codes text,
  expires_at text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  closed_at text COLLATE "C",
  CONSTRAINT kyc_resubmissions_attempt_check CHECK ((attempt >= 2)),
  CONSTRAINT kyc_resubmissions_pkey PRIMARY KEY (id),
  CONSTRAINT kyc_resubmissions_request_id_attempt_key UNIQUE (request_id, attempt),
  CONSTRAINT kyc_resubmissions_request_id_fkey FOREIGN KEY (request_id) REFERENCES kyc_requests(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT kyc_resubmissions_state_check CHECK ((state = ANY (ARRAY['open'::text, 'submitted'::text, 'expired'::text]))),
  CONSTRAINT kyc_resubmissions_step_check CHECK ((step = ANY (ARRAY['document_front'::text, 'document_back'::text, 'selfie'::text, 'liveness'::text])))
);

CREATE TABLE kycd_schema (
  version integer NOT NULL,
  applied_at text NOT NULL,
  CONSTRAINT kycd_schema_pkey PRIMARY KEY (version)
);

CREATE TABLE list_entities (
  version_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  body bytea NOT NULL,
  CONSTRAINT list_entities_pkey PRIMARY KEY (version_id, seq),
  CONSTRAINT list_entities_version_id_fkey FOREIGN KEY (version_id) REFERENCES list_versions(id) ON DELETE CASCADE DEFERRABLE
);

CREATE TABLE list_imports (
  id text COLLATE "C" NOT NULL,
  source text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  format text COLLATE "C" NOT NULL,
  provider text COLLATE "C" NOT NULL,
  forced bigint NOT NULL,
  files text COLLATE "C" NOT NULL,
  state text COLLATE "C" NOT NULL,
  phase text COLLATE "C" NOT NULL,
  bytes bigint NOT NULL DEFAULT 0,
  total bigint NOT NULL,
  entities bigint NOT NULL DEFAULT 0,
  version_id text COLLATE "C",
  error text COLLATE "C",
  actor_id text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  finished_at text COLLATE "C",
  CONSTRAINT list_imports_actor_id_fkey FOREIGN KEY (actor_id) REFERENCES users(id) ON DELETE SET NULL DEFERRABLE,
  CONSTRAINT list_imports_forced_check CHECK ((forced = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT list_imports_kind_check CHECK ((kind = ANY (ARRAY['sanctions'::text, 'pep'::text, 'adverse_media'::text]))),
  CONSTRAINT list_imports_pkey PRIMARY KEY (id),
  CONSTRAINT list_imports_state_check CHECK ((state = ANY (ARRAY['running'::text, 'imported'::text, 'unchanged'::text, 'failed'::text, 'interrupted'::text]))),
  CONSTRAINT list_imports_version_id_fkey FOREIGN KEY (version_id) REFERENCES list_versions(id) ON DELETE SET NULL DEFERRABLE
);

CREATE TABLE list_versions (
  id text COLLATE "C" NOT NULL,
  source text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  format text COLLATE "C" NOT NULL,
  provider text COLLATE "C" NOT NULL,
  sha256 text COLLATE "C" NOT NULL,
  entity_count bigint NOT NULL,
  imported_at text COLLATE "C" NOT NULL,
  active bigint NOT NULL,
  complete bigint NOT NULL DEFAULT 1,
  CONSTRAINT list_versions_active_check CHECK ((active = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT list_versions_complete_check CHECK ((complete = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT list_versions_kind_check CHECK ((kind = ANY (ARRAY['sanctions'::text, 'pep'::text, 'adverse_media'::text]))),
  CONSTRAINT list_versions_pkey PRIMARY KEY (id)
);

CREATE TABLE liveness_frames (
  id text COLLATE "C" NOT NULL,
  session_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  step bigint NOT NULL,
  content_type text COLLATE "C" NOT NULL,
  size bigint NOT NULL,
  width bigint NOT NULL,
  height bigint NOT NULL,
  sha256 text COLLATE "C" NOT NULL,
  key_id bigint NOT NULL,
  data bytea NOT NULL,
  CONSTRAINT liveness_frames_key_id_fkey FOREIGN KEY (key_id) REFERENCES data_keys(id) DEFERRABLE,
  CONSTRAINT liveness_frames_pkey PRIMARY KEY (id),
  CONSTRAINT liveness_frames_session_id_fkey FOREIGN KEY (session_id) REFERENCES liveness_sessions(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT liveness_frames_session_id_seq_key UNIQUE (session_id, seq)
);

CREATE TABLE liveness_sessions (
  id text COLLATE "C" NOT NULL,
  request_id text COLLATE "C" NOT NULL,
  nonce_sha256 text COLLATE "C" NOT NULL,
  challenge text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  opened_at text COLLATE "C" NOT NULL,
  deadline_at text COLLATE "C" NOT NULL,
  received_at text COLLATE "C",
  verdict text COLLATE "C",
  selfie_capture_id text COLLATE "C",
  user_agent text COLLATE "C" NOT NULL,
  ip text COLLATE "C" NOT NULL,
  attempt bigint NOT NULL DEFAULT 1,
  CONSTRAINT liveness_sessions_attempt_check CHECK ((attempt >= 1)),
  CONSTRAINT liveness_sessions_nonce_sha256_key UNIQUE (nonce_sha256),
  CONSTRAINT liveness_sessions_pkey PRIMARY KEY (id),
  CONSTRAINT liveness_sessions_request_id_fkey FOREIGN KEY (request_id) REFERENCES kyc_requests(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT liveness_sessions_selfie_capture_id_fkey FOREIGN KEY (selfie_capture_id) REFERENCES kyc_captures(id) ON DELETE SET NULL DEFERRABLE,
  CONSTRAINT liveness_sessions_status_check CHECK ((status = ANY (ARRAY['open'::text, 'passed'::text, 'failed'::text])))
);

CREATE TABLE login_failures (
  scope text COLLATE "C" NOT NULL,
  subject text COLLATE "C" NOT NULL,
  at text COLLATE "C" NOT NULL,
  CONSTRAINT login_failures_scope_check CHECK ((scope = ANY (ARRAY['account'::text, 'address'::text])))
);

CREATE TABLE organization_logos (
  sha256 text COLLATE "C" NOT NULL,
  content_type text COLLATE "C" NOT NULL,
  width bigint NOT NULL,
  height bigint NOT NULL,
  data bytea NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  CONSTRAINT organization_logos_content_type_check CHECK ((content_type = ANY (ARRAY['image/png'::text, 'image/svg+xml'::text]))),
  CONSTRAINT organization_logos_pkey PRIMARY KEY (sha256)
);

CREATE TABLE organizations (
  id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  contact_email text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  aml_threshold double precision,
  decision_policy text COLLATE "C",
  four_eyes bigint NOT NULL DEFAULT 0,
  display_name text COLLATE "C",
  support_email text COLLATE "C",
  privacy_url text COLLATE "C",
  brand_color text COLLATE "C",
  default_locale text COLLATE "C",
  logo_sha256 text COLLATE "C",
  aml_kinds text COLLATE "C",
  require_totp bigint NOT NULL DEFAULT 0,
  report_personal_data text COLLATE "C" NOT NULL DEFAULT 'full'::text,
  retention_decided_years integer,
  retention_inactive_days integer,
  retention_sandbox_days integer,
  review_sla_live_hours bigint,
  review_sla_sandbox_hours bigint,
  review_round_robin bigint NOT NULL DEFAULT 0,
  review_round_robin_last text COLLATE "C",
  retention_aml_years integer,
  CONSTRAINT organizations_aml_threshold_check CHECK (((aml_threshold > (0)::double precision) AND (aml_threshold <= (1)::double precision))),
  CONSTRAINT organizations_four_eyes_check CHECK ((four_eyes = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT organizations_logo_sha256_fkey FOREIGN KEY (logo_sha256) REFERENCES organization_logos(sha256) DEFERRABLE,
  CONSTRAINT organizations_pkey PRIMARY KEY (id),
  CONSTRAINT organizations_report_personal_data_check CHECK ((report_personal_data = ANY (ARRAY['full'::text, 'masked'::text]))),
  CONSTRAINT organizations_require_totp_check CHECK ((require_totp = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT organizations_retention_aml_years_check CHECK (((retention_aml_years >= 1) AND (retention_aml_years <= 50))),
  CONSTRAINT organizations_retention_decided_years_check CHECK (((retention_decided_years >= 1) AND (retention_decided_years <= 50))),
  CONSTRAINT organizations_retention_inactive_days_check CHECK (((retention_inactive_days >= 1) AND (retention_inactive_days <= 36500))),
  CONSTRAINT organizations_retention_sandbox_days_check CHECK (((retention_sandbox_days >= 1) AND (retention_sandbox_days <= 36500))),
  CONSTRAINT organizations_review_round_robin_check CHECK ((review_round_robin = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT organizations_review_sla_live_hours_check CHECK (((review_sla_live_hours >= 1) AND (review_sla_live_hours <= 8760))),
  CONSTRAINT organizations_review_sla_sandbox_hours_check CHECK (((review_sla_sandbox_hours >= 1) AND (review_sla_sandbox_hours <= 8760)))
);

CREATE TABLE reason_codes (
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  code text COLLATE "C" NOT NULL,
  label text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  CONSTRAINT reason_codes_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT reason_codes_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT reason_codes_pkey PRIMARY KEY (organization_id, environment, code)
);

CREATE TABLE subject_keys (
  applicant_id text COLLATE "C" NOT NULL,
  secret bytea NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  CONSTRAINT subject_keys_pkey PRIMARY KEY (applicant_id)
);

CREATE TABLE usage_events (
  metric text COLLATE "C" NOT NULL,
  resource_id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  occurred_at text COLLATE "C" NOT NULL,
  CONSTRAINT usage_events_metric_check CHECK ((metric = ANY (ARRAY['kyc_requests_submitted'::text, 'aml_checks_created'::text, 'monitoring_rescreens'::text, 'manual_rescreens'::text]))),
  CONSTRAINT usage_events_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT usage_events_pkey PRIMARY KEY (metric, resource_id)
);

CREATE TABLE user_tokens (
  token_hash bytea NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  purpose text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  used_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  CONSTRAINT user_tokens_pkey PRIMARY KEY (token_hash),
  CONSTRAINT user_tokens_purpose_check CHECK ((purpose = 'set_password'::text)),
  CONSTRAINT user_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE DEFERRABLE
);

CREATE TABLE users (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  email text COLLATE "kycd_nocase" NOT NULL,
  name text COLLATE "C" NOT NULL,
  role text COLLATE "C" NOT NULL,
  password_hash text COLLATE "C",
  password_set_at text COLLATE "C",
  totp_secret bytea,
  totp_key_id bigint,
  totp_last_step bigint,
  disabled_at text COLLATE "C",
  last_login_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  installation_admin bigint NOT NULL DEFAULT 0,
  review_available bigint NOT NULL DEFAULT 0,
  senior bigint NOT NULL DEFAULT 0,
  CONSTRAINT users_email_key UNIQUE (email),
  CONSTRAINT users_installation_admin_check CHECK ((installation_admin = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT users_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT users_pkey PRIMARY KEY (id),
  CONSTRAINT users_review_available_check CHECK ((review_available = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['admin'::text, 'reviewer'::text, 'analyst'::text, 'viewer'::text]))),
  CONSTRAINT users_senior_check CHECK ((senior = ANY (ARRAY[(0)::bigint, (1)::bigint])))
);

CREATE TABLE webhook_attempts (
  id bigint GENERATED BY DEFAULT AS IDENTITY NOT NULL,
  delivery_id text COLLATE "C" NOT NULL,
  attempt bigint NOT NULL,
  request_headers text COLLATE "C" NOT NULL,
  response_status bigint,
  response_excerpt text COLLATE "C" NOT NULL DEFAULT ''::text,
  response_body_withheld bigint NOT NULL DEFAULT 0,
  duration_ms bigint NOT NULL,
  error text COLLATE "C" NOT NULL DEFAULT ''::text,
  started_at text COLLATE "C" NOT NULL,
  next_retry_at text COLLATE "C",
  CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id),
  CONSTRAINT webhook_attempts_response_body_withheld_check CHECK ((response_body_withheld = ANY (ARRAY[(0)::bigint, (1)::bigint])))
);

CREATE TABLE webhook_deliveries (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  endpoint_id text COLLATE "C",
  callback_url text COLLATE "C",
  event_id text COLLATE "C" NOT NULL,
  event_type text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  attempts bigint NOT NULL DEFAULT 0,
  last_status_code bigint,
  next_attempt_at text COLLATE "C",
  delivered_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  CONSTRAINT webhook_deliveries_check CHECK (((endpoint_id IS NULL) = (callback_url IS NOT NULL))),
  CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT webhook_deliveries_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT webhook_deliveries_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id),
  CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text])))
);

CREATE TABLE webhook_endpoints (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  environment text COLLATE "C" NOT NULL,
  url text COLLATE "C" NOT NULL,
  description text COLLATE "C" NOT NULL DEFAULT ''::text,
  event_types text COLLATE "C" NOT NULL DEFAULT '[]'::text,
  secret bytea NOT NULL,
  previous_secret bytea,
  previous_secret_until text COLLATE "C",
  enabled bigint NOT NULL DEFAULT 1,
  disabled_reason text COLLATE "C",
  disabled_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  deleted_at text COLLATE "C",
  dual_sign bigint NOT NULL DEFAULT 0,
  CONSTRAINT webhook_endpoints_dual_sign_check CHECK ((dual_sign = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT webhook_endpoints_enabled_check CHECK ((enabled = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
  CONSTRAINT webhook_endpoints_environment_check CHECK ((environment = ANY (ARRAY['sandbox'::text, 'live'::text]))),
  CONSTRAINT webhook_endpoints_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE DEFERRABLE,
  CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id)
);

CREATE TABLE write_probe (
  id bigint NOT NULL,
  data bytea NOT NULL,
  CONSTRAINT write_probe_pkey PRIMARY KEY (id)
);

CREATE INDEX aml_batch_rows_status_idx ON aml_batch_rows USING btree (batch_id, status, row_index);

CREATE INDEX aml_batches_org_idx ON aml_batches USING btree (organization_id, environment, id);

CREATE INDEX aml_case_entries_case_idx ON aml_case_entries USING btree (case_id, id);

CREATE INDEX aml_cases_assignee_idx ON aml_cases USING btree (organization_id, environment, assignee_id, id);

CREATE UNIQUE INDEX aml_cases_open_idx ON aml_cases USING btree (check_id) WHERE (status = 'open'::text);

CREATE INDEX aml_cases_org_idx ON aml_cases USING btree (organization_id, environment, status, id);

CREATE INDEX aml_checks_next_screen_at_idx ON aml_checks USING btree (next_screen_at) WHERE (next_screen_at IS NOT NULL);

CREATE INDEX aml_checks_org_env_id_idx ON aml_checks USING btree (organization_id, environment, id);

CREATE INDEX aml_checks_org_env_status_id_idx ON aml_checks USING btree (organization_id, environment, status, id);

CREATE INDEX aml_checks_retention_idx ON aml_checks USING btree (organization_id, environment, last_screened_at) WHERE (erased_at IS NULL);

CREATE INDEX aml_checks_review_idx ON aml_checks USING btree (organization_id, environment, review_status, id);

CREATE INDEX aml_match_decisions_check_idx ON aml_match_decisions USING btree (check_id, id);

CREATE INDEX aml_screenings_check_id_idx ON aml_screenings USING btree (check_id, id);

CREATE INDEX aml_screenings_retention_idx ON aml_screenings USING btree (screened_at, id) WHERE (erased_at IS NULL);

CREATE UNIQUE INDEX aml_suppressions_active_idx ON aml_suppressions USING btree (organization_id, environment, subject_key, match_id) WHERE (lifted_at IS NULL);

CREATE INDEX api_keys_organization_id_idx ON api_keys USING btree (organization_id);

CREATE INDEX applicants_erasure_due_idx ON applicants USING btree (erasure_scheduled_at) WHERE ((erasure_scheduled_at IS NOT NULL) AND (erased_at IS NULL));

CREATE UNIQUE INDEX applicants_org_env_external_ref_idx ON applicants USING btree (organization_id, environment, external_ref) WHERE (external_ref IS NOT NULL);

CREATE INDEX applicants_org_env_id_idx ON applicants USING btree (organization_id, environment, id);

CREATE INDEX applicants_org_env_status_id_idx ON applicants USING btree (organization_id, environment, status, id);

CREATE INDEX audit_log_org_idx ON audit_log USING btree (organization_id, id);

CREATE INDEX audit_log_resource_idx ON audit_log USING btree (resource_id, id);

CREATE INDEX case_comments_subject_idx ON case_comments USING btree (organization_id, environment, subject_type, subject_id, id);

CREATE INDEX case_tags_subject_idx ON case_tags USING btree (subject_id, tag);

CREATE INDEX console_sessions_expires_idx ON console_sessions USING btree (expires_at);

CREATE INDEX console_sessions_user_idx ON console_sessions USING btree (user_id);

CREATE UNIQUE INDEX data_keys_active_idx ON data_keys USING btree (active) WHERE (active = 1);

CREATE INDEX document_sessions_request_idx ON document_sessions USING btree (request_id, id);

CREATE INDEX erasures_org_env_idx ON erasures USING btree (organization_id, environment, erased_at);

CREATE INDEX events_org_env_id_idx ON events USING btree (organization_id, environment, id);

CREATE INDEX face_descriptors_org_env_idx ON face_descriptors USING btree (organization_id, environment, id);

CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys USING btree (expires_at);

CREATE INDEX jobs_state_run_at_idx ON jobs USING btree (state, run_at);

CREATE INDEX kyc_captures_ip_idx ON kyc_captures USING btree (ip, captured_at);

CREATE INDEX kyc_captures_plaintext_idx ON kyc_captures USING btree (id) WHERE (key_id IS NULL);

CREATE INDEX kyc_captures_request_idx ON kyc_captures USING btree (request_id, kind, id);

CREATE INDEX kyc_captures_sha256_idx ON kyc_captures USING btree (sha256);

CREATE INDEX kyc_captures_sha_idx ON kyc_captures USING btree (source_sha256);

CREATE INDEX kyc_events_request_idx ON kyc_events USING btree (request_id, id);

CREATE INDEX kyc_request_reasons_request_idx ON kyc_request_reasons USING btree (request_id);

CREATE INDEX kyc_requests_applicant_idx ON kyc_requests USING btree (applicant_id);

CREATE INDEX kyc_requests_org_document_number_idx ON kyc_requests USING btree (organization_id, environment, document_number) WHERE (document_number IS NOT NULL);

CREATE INDEX kyc_requests_org_document_number_read_idx ON kyc_requests USING btree (organization_id, environment, document_number_read) WHERE (document_number_read IS NOT NULL);

CREATE INDEX kyc_requests_org_env_assignee_idx ON kyc_requests USING btree (organization_id, environment, assignee_id, id);

CREATE INDEX kyc_requests_org_env_created_idx ON kyc_requests USING btree (organization_id, environment, created_at, id);

CREATE INDEX kyc_requests_org_env_decided_by_idx ON kyc_requests USING btree (organization_id, environment, decided_by, decided_at, id);

CREATE INDEX kyc_requests_org_env_decided_idx ON kyc_requests USING btree (organization_id, environment, decided_at, id);

CREATE INDEX kyc_requests_org_env_decider_decision_idx ON kyc_requests USING btree (organization_id, environment, decided_by, decision, id);

CREATE INDEX kyc_requests_org_env_decision_idx ON kyc_requests USING btree (organization_id, environment, decision, id);

CREATE INDEX kyc_requests_org_env_escalated_idx ON kyc_requests USING btree (organization_id, environment, escalated_at, id);

CREATE INDEX kyc_requests_org_env_id_idx ON kyc_requests USING btree (organization_id, environment, id);

CREATE INDEX kyc_requests_org_env_risk_idx ON kyc_requests USING btree (organization_id, environment, risk_score, id);

CREATE INDEX kyc_requests_org_env_status_assignee_idx ON kyc_requests USING btree (organization_id, environment, status, assignee_id, id);

CREATE INDEX kyc_requests_org_env_status_decided_idx ON kyc_requests USING btree (organization_id, environment, status, decided_at, id);

CREATE INDEX kyc_requests_org_env_status_id_idx ON kyc_requests USING btree (organization_id, environment, status, id);

CREATE INDEX kyc_requests_org_env_status_submitted_idx ON kyc_requests USING btree (organization_id, environment, status, submitted_at);

CREATE INDEX kyc_requests_overdue_idx ON kyc_requests USING btree (organization_id, environment, status, overdue_at, submitted_at);

CREATE INDEX kyc_requests_plaintext_document_idx ON kyc_requests USING btree (id) WHERE ((document_key_id IS NULL) AND (document_data IS NOT NULL));

CREATE INDEX kyc_requests_queue_idx ON kyc_requests USING btree (organization_id, environment, status, submitted_at, id, reason_codes);

CREATE UNIQUE INDEX list_imports_running_idx ON list_imports USING btree (state) WHERE (state = 'running'::text);

CREATE UNIQUE INDEX list_versions_active_source_idx ON list_versions USING btree (source) WHERE (active = 1);

CREATE INDEX liveness_sessions_request_idx ON liveness_sessions USING btree (request_id, id);

CREATE INDEX login_failures_idx ON login_failures USING btree (scope, subject, at);

CREATE INDEX usage_events_org_idx ON usage_events USING btree (organization_id, occurred_at);

CREATE INDEX user_tokens_user_idx ON user_tokens USING btree (user_id);

CREATE INDEX users_org_idx ON users USING btree (organization_id, id);

CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts USING btree (delivery_id, attempt);

CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries USING btree (endpoint_id, id);

CREATE INDEX webhook_deliveries_org_env_id_idx ON webhook_deliveries USING btree (organization_id, environment, id);

CREATE INDEX webhook_endpoints_org_env_idx ON webhook_endpoints USING btree (organization_id, environment, id);

CREATE TRIGGER aml_match_decisions_no_update BEFORE UPDATE ON aml_match_decisions FOR EACH ROW EXECUTE FUNCTION kycd_refuse('aml_match_decisions is append-only');

CREATE TRIGGER audit_head_no_delete BEFORE DELETE ON audit_head FOR EACH ROW EXECUTE FUNCTION kycd_refuse('audit_head is never deleted');

CREATE TRIGGER audit_log_chained BEFORE INSERT ON audit_log FOR EACH ROW WHEN (((new.prev_hash IS NULL) OR (new.content_hash IS NULL))) EXECUTE FUNCTION kycd_refuse('audit_log rows must carry prev_hash and content_hash');

CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION kycd_refuse('audit_log is append-only');

CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION kycd_refuse('audit_log is append-only');

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION kycd_refuse('audit_log is append-only');

CREATE TRIGGER kyc_captures_camera_needs_session BEFORE INSERT ON kyc_captures FOR EACH ROW WHEN (((new.method = 'camera'::text) AND (new.session_id IS NULL))) EXECUTE FUNCTION kycd_refuse('a camera capture needs a passed liveness session');

CREATE TRIGGER kyc_events_no_update BEFORE UPDATE ON kyc_events FOR EACH ROW EXECUTE FUNCTION kycd_refuse('kyc_events is append-only');

