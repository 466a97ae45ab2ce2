-- The document number read from the document itself (its MRZ, by the
-- decision engine), beside the one typed with the request: the duplicate
-- check compares what each request's document says, and the typed number
-- only where no document was read. Like document_number, it holds a keyed
-- HMAC of the normalised number (store/datakey.go), never the number.
ALTER TABLE kyc_requests ADD COLUMN document_number_read TEXT;
CREATE INDEX kyc_requests_org_document_number_read_idx ON kyc_requests (organization_id, environment, document_number_read)
  WHERE document_number_read IS NOT NULL;
