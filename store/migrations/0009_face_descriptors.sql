-- Face descriptors (store/face.go): the 128 numbers the face model
-- computed for a request's selfie and document portrait, kept so that a
-- later request of another applicant of the organization can be checked
-- for the same face (the duplicate_face signal). A descriptor is biometric
-- data: it is sealed like the images (AES-256-GCM with a data key, AAD =
-- the row id), never stored in plaintext.
CREATE TABLE face_descriptors (
  id              TEXT PRIMARY KEY,            -- fd_<ulid>
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment     TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
  applicant_id    TEXT NOT NULL REFERENCES applicants (id),
  request_id      TEXT NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE,
  capture_id      TEXT NOT NULL UNIQUE REFERENCES kyc_captures (id) ON DELETE CASCADE,
  key_id          INTEGER NOT NULL REFERENCES data_keys (id),
  descriptor      BLOB NOT NULL,               -- 128 little-endian float32, sealed
  created_at      TEXT NOT NULL
) STRICT;

-- The duplicate check reads every descriptor of one organization and
-- environment.
CREATE INDEX face_descriptors_org_env_idx ON face_descriptors (organization_id, environment, id);
