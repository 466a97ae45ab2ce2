-- PostgreSQL twin of ../0025_document_sessions.sql.
CREATE TABLE document_sessions (
  id           TEXT COLLATE "C" PRIMARY KEY,                 -- dcs_<ulid>
  request_id   TEXT COLLATE "C" NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE DEFERRABLE,
  nonce_sha256 TEXT COLLATE "C" NOT NULL UNIQUE,             -- the page holds the nonce; only its hash is kept
  opened_at    TEXT COLLATE "C" NOT NULL,
  deadline_at  TEXT COLLATE "C" NOT NULL,
  user_agent   TEXT COLLATE "C" NOT NULL,
  ip           TEXT COLLATE "C" NOT NULL
);

CREATE INDEX document_sessions_request_idx ON document_sessions (request_id, id);

ALTER TABLE kyc_captures ADD COLUMN document_session_id TEXT COLLATE "C" REFERENCES document_sessions (id) DEFERRABLE;
