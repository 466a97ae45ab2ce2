-- The list kinds an organization screens (kyc.AMLKinds): a comma-separated
-- set that always holds sanctions, e.g. 'sanctions,pep'. NULL: the
-- default, sanctions plus every kind the installation has a list of.
ALTER TABLE organizations ADD COLUMN aml_kinds TEXT;
