-- Encryption at rest (store/datakey.go). Captured images and the document
-- details an applicant confirmed are sealed (AES-256-GCM) with a data key;
-- the data key is kept here only wrapped (sealed) by the master key, which
-- never enters the database. Rotating the master key re-wraps these rows
-- and re-encrypts nothing else.
CREATE TABLE data_keys (
  id         INTEGER PRIMARY KEY,
  wrapped    BLOB NOT NULL,                    -- 32-byte key sealed by the master key, AAD 'kycd data key <id>'
  created_at TEXT NOT NULL,
  active     INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)) -- the key new data is sealed with
) STRICT;

CREATE UNIQUE INDEX data_keys_active_idx ON data_keys (active) WHERE active = 1;

-- NULL: stored in plaintext before encryption at rest; serve encrypts those
-- rows at start-up. Otherwise data is sealed with that key, AAD = the id.
ALTER TABLE kyc_captures ADD COLUMN key_id INTEGER REFERENCES data_keys (id);
-- Same for document_data, which then holds the sealed JSON in base64, and
-- document_number, which then holds a keyed HMAC of the normalised number
-- (equal numbers still compare equal, for the duplicate check).
ALTER TABLE kyc_requests ADD COLUMN document_key_id INTEGER REFERENCES data_keys (id);

-- Find the rows still in plaintext without reading every image: key_id
-- comes after the image in the row, so a scan would read each one whole.
CREATE INDEX kyc_captures_plaintext_idx ON kyc_captures (id) WHERE key_id IS NULL;
CREATE INDEX kyc_requests_plaintext_document_idx ON kyc_requests (id)
  WHERE document_key_id IS NULL AND document_data IS NOT NULL;
