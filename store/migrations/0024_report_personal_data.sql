-- How an organization's compliance reports print personal data
-- (kyc.PersonalData): 'full', the default, prints every identifier
-- kycd holds (the record the regulated firm files and must keep); 'masked'
-- prints document numbers with their last four characters, masks e-mail,
-- phone numbers and IP addresses, and leaves out the MRZ and the document
-- images, in the PDF and in report.json alike.
ALTER TABLE organizations ADD COLUMN report_personal_data TEXT NOT NULL DEFAULT 'full' CHECK (report_personal_data IN ('full', 'masked'));
