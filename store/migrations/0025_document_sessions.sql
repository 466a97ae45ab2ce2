-- Document camera sessions (issue 24): the portal opens one before it
-- takes a document photo with the camera, and posts the photo with the
-- session's nonce before the deadline. Only such a capture is a
-- camera_session capture; every other document image is an upload,
-- whatever the page says. The session proves the photo came through the
-- server's capture flow now, not that it shows a real document (the
-- document-authenticity signals look at that).
CREATE TABLE document_sessions (
  id           TEXT PRIMARY KEY,                 -- dcs_<ulid>
  request_id   TEXT NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE,
  nonce_sha256 TEXT NOT NULL UNIQUE,             -- the page holds the nonce; only its hash is kept
  opened_at    TEXT NOT NULL,
  deadline_at  TEXT NOT NULL,
  user_agent   TEXT NOT NULL,
  ip           TEXT NOT NULL
) STRICT;

CREATE INDEX document_sessions_request_idx ON document_sessions (request_id, id);

ALTER TABLE kyc_captures ADD COLUMN document_session_id TEXT REFERENCES document_sessions (id);
