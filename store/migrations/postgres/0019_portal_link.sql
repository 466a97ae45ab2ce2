-- As SQLite's 0019 (read its comments): the sealed portal token beside its
-- hash, portal_opened_at instead of the in_progress status, and the
-- timeline's names rewritten once.
ALTER TABLE kyc_requests ADD COLUMN portal_token_sealed BYTEA;
ALTER TABLE kyc_requests ADD COLUMN portal_token_key_id BIGINT REFERENCES data_keys (id) DEFERRABLE;
ALTER TABLE kyc_requests ADD COLUMN portal_opened_at TEXT COLLATE "C";

UPDATE kyc_requests SET portal_opened_at = (
    SELECT max(e.created_at) FROM kyc_events e WHERE e.request_id = kyc_requests.id AND e.type = 'kyc.request.opened')
  WHERE status <> 'link_generated';
UPDATE kyc_requests SET status = 'link_generated', portal_opened_at = coalesce(portal_opened_at, updated_at)
  WHERE status = 'in_progress';

ALTER TABLE kyc_events DISABLE TRIGGER kyc_events_no_update;
UPDATE kyc_events SET type = 'svc.kyc.portal_link_opened' WHERE type = 'kyc.request.opened';
UPDATE kyc_events SET type = 'svc.kyc.review.first_decision' WHERE type = 'kyc.review.first_decision';
UPDATE kyc_events SET to_status = 'link_generated' WHERE to_status = 'in_progress';
UPDATE kyc_events SET from_status = 'link_generated' WHERE from_status = 'in_progress';
ALTER TABLE kyc_events ENABLE TRIGGER kyc_events_no_update;
