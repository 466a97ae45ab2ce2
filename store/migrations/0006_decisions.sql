-- What the decision engine needs beyond the images: the document details
-- the applicant confirmed in the portal, the organization's policy and its
-- review settings.

-- JSON: documentNumber, expiryDate, mrz (as typed), issuingCountry, documentType.
ALTER TABLE kyc_requests ADD COLUMN document_data TEXT;
-- The normalised document number, for the duplicate check.
ALTER TABLE kyc_requests ADD COLUMN document_number TEXT;
CREATE INDEX kyc_requests_org_document_number_idx ON kyc_requests (organization_id, environment, document_number)
  WHERE document_number IS NOT NULL;
-- A first reviewer's decision waiting for a second reviewer (four-eyes), JSON.
ALTER TABLE kyc_requests ADD COLUMN pending_review TEXT;
-- The reviewer's reason code (e.g. DOCUMENT_FORGED) with the note.
ALTER TABLE kyc_requests ADD COLUMN review_reason_code TEXT;

-- The decision policy (JSON, validated on the way in); NULL: the default.
ALTER TABLE organizations ADD COLUMN decision_policy TEXT;
-- Live manual decisions need two different reviewers.
ALTER TABLE organizations ADD COLUMN four_eyes INTEGER NOT NULL DEFAULT 0 CHECK (four_eyes IN (0, 1));

CREATE INDEX kyc_captures_sha256_idx ON kyc_captures (sha256);
CREATE INDEX kyc_captures_ip_idx ON kyc_captures (ip, captured_at);
