-- The audit log becomes a hash chain (store/audit.go): each row carries the
-- SHA-256 of its own fields and of the row before it, so that changing,
-- inserting or deleting a row — even by someone who bypasses the triggers
-- with direct access to the file — breaks the chain where it happened.
--
-- Rows written before this migration keep NULL hashes: they are "pre-chain".
-- They are not rewritten (SQL has no SHA-256, and the triggers refuse
-- updates anyway); instead the first chained row links to a hash computed
-- over all of them, so from then on they are covered as a whole.

ALTER TABLE audit_log ADD COLUMN prev_hash TEXT;    -- hex SHA-256: the previous row's content_hash, 64 zeros for row 1
ALTER TABLE audit_log ADD COLUMN content_hash TEXT; -- hex SHA-256 of this row's canonical encoding

-- Every row from now on is chained; only pre-chain rows have no hashes.
CREATE TRIGGER audit_log_chained BEFORE INSERT ON audit_log
  WHEN NEW.prev_hash IS NULL OR NEW.content_hash IS NULL
  BEGIN SELECT RAISE(ABORT, 'audit_log rows must carry prev_hash and content_hash'); END;
