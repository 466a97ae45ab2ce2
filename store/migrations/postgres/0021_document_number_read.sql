-- As SQLite's 0021: the document number read from the document itself,
-- as a keyed HMAC, beside the typed one.
ALTER TABLE kyc_requests ADD COLUMN document_number_read TEXT COLLATE "C";
CREATE INDEX kyc_requests_org_document_number_read_idx ON kyc_requests (organization_id, environment, document_number_read)
  WHERE document_number_read IS NOT NULL;
