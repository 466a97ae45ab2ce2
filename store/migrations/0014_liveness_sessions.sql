-- Challenge-bound selfie capture (package liveness): the server opens a
-- session with a random challenge (head movements) and a deadline, the
-- portal uploads the frames it captured, and the server's verdict decides
-- whether the session's selfie counts as a camera capture of a live
-- person. Every frame is kept as evidence, sealed like the captures
-- (AES-256-GCM with a data key, AAD = the frame id).
CREATE TABLE liveness_sessions (
  id                TEXT PRIMARY KEY,            -- lvs_<ulid>
  request_id        TEXT NOT NULL REFERENCES kyc_requests (id) ON DELETE CASCADE,
  nonce_sha256      TEXT NOT NULL UNIQUE,        -- the page holds the nonce; only its hash is kept
  challenge         TEXT NOT NULL,               -- JSON array of movements
  status            TEXT NOT NULL CHECK (status IN ('open', 'passed', 'failed')),
  opened_at         TEXT NOT NULL,
  deadline_at       TEXT NOT NULL,
  received_at       TEXT,                        -- when the frames arrived: the nonce is spent
  verdict           TEXT,                        -- JSON: liveness.Verdict
  selfie_capture_id TEXT REFERENCES kyc_captures (id) ON DELETE SET NULL,
  user_agent        TEXT NOT NULL,
  ip                TEXT NOT NULL
) STRICT;

CREATE INDEX liveness_sessions_request_idx ON liveness_sessions (request_id, id);

CREATE TABLE liveness_frames (
  id           TEXT PRIMARY KEY,                 -- lvf_<ulid>
  session_id   TEXT NOT NULL REFERENCES liveness_sessions (id) ON DELETE CASCADE,
  seq          INTEGER NOT NULL,                 -- capture order, from 0
  step         INTEGER NOT NULL,                 -- 0 looks straight, then the challenge's movements
  content_type TEXT NOT NULL,
  size         INTEGER NOT NULL,
  width        INTEGER NOT NULL,
  height       INTEGER NOT NULL,
  sha256       TEXT NOT NULL,
  key_id       INTEGER NOT NULL REFERENCES data_keys (id),
  data         BLOB NOT NULL,
  UNIQUE (session_id, seq)
) STRICT;

-- The selfie a passed session produced is a capture like any other, with
-- the session it came from. kyc_captures.method's CHECK predates sessions
-- (rebuilding the table to widen it would cascade through
-- face_descriptors), so in that column 'camera' now means what the API
-- calls camera_challenge: the server saw the session pass. The trigger
-- keeps it so: no 'camera' capture without a session.
ALTER TABLE kyc_captures ADD COLUMN session_id TEXT REFERENCES liveness_sessions (id);

CREATE TRIGGER kyc_captures_camera_needs_session BEFORE INSERT ON kyc_captures
  WHEN NEW.method = 'camera' AND NEW.session_id IS NULL
BEGIN
  SELECT RAISE(ABORT, 'a camera capture needs a passed liveness session');
END;

-- Until now method was the page's claim. It stays as evidence
-- (meta.clientMethod); the method becomes the server's: nothing stored
-- before this migration came from a session, so everything is an upload.
UPDATE kyc_captures SET meta = json_set(meta, '$.clientMethod', method), method = 'upload';
