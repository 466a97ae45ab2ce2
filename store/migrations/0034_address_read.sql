-- The holder's address as the engine read it from a document (a driving
-- licence's PDF417 barcode), sealed under the applicant's key with the
-- request id as associated data (base64, as document_data): personal
-- data, which processingResult (stored in clear) does not carry. NULL
-- when the data the engine took came from an MRZ, or nothing was read;
-- rewritten at every decision, cleared by erasure.
ALTER TABLE kyc_requests ADD COLUMN address_read TEXT;
ALTER TABLE kyc_requests ADD COLUMN address_read_key_id INTEGER REFERENCES data_keys (id);
