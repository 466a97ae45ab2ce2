-- The audit chain becomes keyed and gets a signed head (store/audit.go,
-- store/audit_head.go). Rows from mac_from on carry an HMAC under a key
-- derived from the data key (so from the master key) in content_hash;
-- earlier rows keep verifying as they did (SHA-256 since 0007, pre-chain
-- before). The head records the row count and the last hash under the
-- same key, so deleting the newest rows (or all of them) shows.
--
-- The row is written unsigned here: SQL has no key. The first kycd that
-- opens the file with the master key signs it over the log as it is.
CREATE TABLE audit_head (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  mac_from     INTEGER NOT NULL,  -- first audit_log id whose content_hash is a MAC
  row_count    INTEGER NOT NULL,  -- the last audit_log id the head covers
  head_hash    TEXT NOT NULL,     -- that row's content_hash ('' until signed)
  signed_since TEXT,              -- when the head was first signed
  signed_at    TEXT,              -- when it was last signed
  mac          TEXT               -- hex HMAC-SHA256 of the head; NULL until signed
) STRICT;

INSERT INTO audit_head (id, mac_from, row_count, head_hash)
  SELECT 1, coalesce(max(id), 0) + 1, coalesce(max(id), 0), '' FROM audit_log;

-- Like the log itself, the head is never deleted.
CREATE TRIGGER audit_head_no_delete BEFORE DELETE ON audit_head BEGIN SELECT RAISE(ABORT, 'audit_head is never deleted'); END;
