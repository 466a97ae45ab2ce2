-- As SQLite's 0024 (read its comments): how an organization's compliance
-- reports print personal data.
ALTER TABLE organizations ADD COLUMN report_personal_data TEXT COLLATE "C" NOT NULL DEFAULT 'full' CHECK (report_personal_data IN ('full', 'masked'));
