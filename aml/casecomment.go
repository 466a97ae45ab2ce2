package aml

import (
	"kycd/casenotes"
	"kycd/kyc"
	"kycd/store"
)

// CaseComment is a new comment on an AML case.
type CaseComment struct {
	Body string
	By   casenotes.Author
	// CaseURL is the case's page in the console, for the mention e-mails.
	CaseURL string
}

// AddCaseComment adds a comment to an AML case's thread, open or closed
// (an investigation is discussed after it ends too), as a KYC case's
// (casenotes.AddComment). The thread is not the case's timeline: the
// timeline records what was decided, the thread what colleagues said.
func (s *Service) AddCaseComment(tx *store.Tx, orgID string, env kyc.Environment, id string, in CaseComment) (*kyc.Comment, error) {
	cs, err := tx.FindAMLCase(orgID, env, id)
	if err != nil {
		return nil, err
	}
	return casenotes.AddComment(tx, casenotes.Subject{OrganizationID: cs.OrganizationID, Environment: cs.Environment, Type: kyc.SubjectAMLCase,
		ID: cs.ID, Name: "AML case " + cs.ID, AuditResource: "aml_case", AuditPrefix: "aml_case.", Status: string(cs.Status), URL: in.CaseURL},
		in.Body, in.By)
}
