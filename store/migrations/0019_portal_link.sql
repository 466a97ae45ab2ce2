-- The portal link, as GET /v1/kyc-requests/{id} now shows it.
--
-- 1. portalUrl while the link can be used. The token is still looked up by
--    its SHA-256 (portal_token_hash); beside it a copy sealed under the
--    data key (AES-256-GCM, AAD 'kyc portal token <request id>', see
--    store/datakey.go) lets the API show the link again without keeping it
--    in clear. The copy is dropped when the link can no longer be used
--    (submitted, cancelled, expired). Requests created before this have no
--    copy (the hash cannot be reversed): GET shows portalUrl null for them
--    until resend-link issues a new link.
ALTER TABLE kyc_requests ADD COLUMN portal_token_sealed BLOB;
ALTER TABLE kyc_requests ADD COLUMN portal_token_key_id INTEGER REFERENCES data_keys (id);

-- 2. in_progress was not a status of spec §3.1, and clients with a closed
--    enum of statuses must never see it. Opening the link now leaves the
--    status link_generated and sets portal_opened_at (when the current link
--    was first opened; resend-link clears it), with the timeline entry
--    svc.kyc.portal_link_opened.
ALTER TABLE kyc_requests ADD COLUMN portal_opened_at TEXT;

UPDATE kyc_requests SET portal_opened_at = (
    SELECT max(e.created_at) FROM kyc_events e WHERE e.request_id = kyc_requests.id AND e.type = 'kyc.request.opened')
  WHERE status <> 'link_generated';
UPDATE kyc_requests SET status = 'link_generated', portal_opened_at = coalesce(portal_opened_at, updated_at)
  WHERE status = 'in_progress';

-- The timeline is append-only, but it is what clients read: its statuses
-- and the two timeline-only types (the link opened, the first of two
-- four-eyes reviews) are rewritten once, here, to the names clients now
-- get, every event type with the svc. prefix. The audit_log, hash-chained,
-- keeps the original rows untouched as the record of what happened.
-- (The status CHECK of kyc_requests still lists in_progress: SQLite cannot
-- narrow it without rebuilding the table, and nothing writes it any more.)
DROP TRIGGER kyc_events_no_update;
UPDATE kyc_events SET type = 'svc.kyc.portal_link_opened' WHERE type = 'kyc.request.opened';
UPDATE kyc_events SET type = 'svc.kyc.review.first_decision' WHERE type = 'kyc.review.first_decision';
UPDATE kyc_events SET to_status = 'link_generated' WHERE to_status = 'in_progress';
UPDATE kyc_events SET from_status = 'link_generated' WHERE from_status = 'in_progress';
CREATE TRIGGER kyc_events_no_update BEFORE UPDATE ON kyc_events BEGIN SELECT RAISE(ABORT, 'kyc_events is append-only'); END;
