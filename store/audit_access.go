package store

import (
	"context"
	"strings"

	"kycd/kyc"
)

// Audit categories: a change (anything written) or an access (personal
// data read: a report downloaded, document or selfie URLs issued, a case
// opened in the console). Access rows are told apart by their action's
// prefix, so the chain's row encoding stays as it is.
const (
	AuditChange = "change"
	AuditAccess = "access"

	accessPrefix = "access."
)

// Access actions.
const (
	AccessReportJSON      = accessPrefix + "report_json"      // a KYC report's JSON
	AccessReportPDF       = accessPrefix + "report_pdf"       // a KYC or AML report's PDF
	AccessDocumentURLs    = accessPrefix + "document_urls"    // pre-signed URLs of a request's documents
	AccessSelfieURLs      = accessPrefix + "selfie_urls"      // pre-signed URLs of a request's selfies and liveness frames
	AccessCaseViewed      = accessPrefix + "case_viewed"      // a case's page in the console
	AccessImageViewed     = accessPrefix + "image_viewed"     // one captured image in the console
	AccessAlertViewed     = accessPrefix + "alert_viewed"     // an AML check's page in the console
	AccessApplicantViewed = accessPrefix + "applicant_viewed" // an applicant's page in the console
	AccessSARFile         = accessPrefix + "sar_file"         // the filed copy of an AML case's suspicious-activity report
	AccessAMLCaseViewed   = accessPrefix + "aml_case_viewed"  // an AML case's page in the console
)

// AuditCategory is the category of an audit row's action.
func AuditCategory(action string) string {
	if strings.HasPrefix(action, accessPrefix) {
		return AuditAccess
	}
	return AuditChange
}

// RecordAccess records that whoever ctx acts for (WithActor) read personal
// data of a resource, in a transaction of its own. Callers record before
// they answer and refuse to answer when it fails: a read that cannot be
// audited is not served.
func (s *Store) RecordAccess(ctx context.Context, orgID string, env kyc.Environment, resourceType, resourceID, action, detail string) error {
	if AuditCategory(action) != AuditAccess {
		panic("store: RecordAccess with a change action " + action)
	}
	return s.InTx(ctx, func(tx *Tx) error {
		a := AuditEntry{OrganizationID: orgID, Environment: env, ResourceType: resourceType, ResourceID: resourceID, Action: action}
		if detail != "" {
			a.Reason = &detail
		}
		return tx.AppendAudit(a)
	})
}
