-- Organization branding (what the applicant is shown of who is asking),
-- the languages of the portal and its e-mail, and HTML e-mail.

-- Logos, re-encoded (PNG) or sanitised (SVG) before they are stored, by
-- the hex SHA-256 of those bytes, which is also their URL. A replaced logo
-- stays, so that e-mail queued with it still finds it; logos are small.
CREATE TABLE organization_logos (
  sha256       TEXT PRIMARY KEY,
  content_type TEXT NOT NULL CHECK (content_type IN ('image/png', 'image/svg+xml')),
  width        INTEGER NOT NULL,
  height       INTEGER NOT NULL,
  data         BLOB NOT NULL,
  created_at   TEXT NOT NULL
) STRICT;

ALTER TABLE organizations ADD COLUMN display_name TEXT;   -- NULL: the name
ALTER TABLE organizations ADD COLUMN support_email TEXT;
ALTER TABLE organizations ADD COLUMN privacy_url TEXT;    -- https
ALTER TABLE organizations ADD COLUMN brand_color TEXT;    -- #rrggbb
ALTER TABLE organizations ADD COLUMN default_locale TEXT; -- a portal locale; NULL: en
ALTER TABLE organizations ADD COLUMN logo_sha256 TEXT REFERENCES organization_logos (sha256);

-- The BCP 47 locale the integrator asked for (POST /v1/kyc-requests);
-- NULL: the applicant's browser, then the organization's default.
ALTER TABLE kyc_requests ADD COLUMN locale TEXT;

-- An e-mail may have an HTML alternative to its text body, a sender name,
-- a Reply-To address, and a logo shown inline (by hash).
ALTER TABLE email_outbox ADD COLUMN html_body TEXT;
ALTER TABLE email_outbox ADD COLUMN from_name TEXT;
ALTER TABLE email_outbox ADD COLUMN reply_to TEXT;
ALTER TABLE email_outbox ADD COLUMN logo_sha256 TEXT REFERENCES organization_logos (sha256);
