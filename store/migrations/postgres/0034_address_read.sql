-- As SQLite's 0034 (read its comments): the address read from a
-- document, sealed.
ALTER TABLE kyc_requests ADD COLUMN address_read TEXT COLLATE "C";
ALTER TABLE kyc_requests ADD COLUMN address_read_key_id BIGINT REFERENCES data_keys (id) DEFERRABLE;
