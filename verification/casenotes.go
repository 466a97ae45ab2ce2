package verification

import (
	"strings"

	"kycd/casenotes"
	"kycd/kyc"
	"kycd/store"
)

// subject describes a request for the case notes' shared code.
func subject(r *kyc.KYCRequest, caseURL string) casenotes.Subject {
	return casenotes.Subject{OrganizationID: r.OrganizationID, Environment: r.Environment, Type: kyc.SubjectKYCRequest, ID: r.ID,
		Name: "case " + r.PublicID, AuditResource: "kyc_request", AuditPrefix: "kyc.", Status: string(r.Status), URL: caseURL}
}

// AddTag tags a request (the tag is normalized: kyc.NormalizeTag) and
// returns its tags. Adding a tag it has changes nothing and audits
// nothing.
func (s *Service) AddTag(tx *store.Tx, orgID string, env kyc.Environment, id, tag string, by casenotes.Author) ([]string, error) {
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	t, err := kyc.NormalizeTag(tag)
	if err != nil {
		return nil, err
	}
	added, err := tx.AddTag(orgID, env, kyc.SubjectKYCRequest, r.ID, t)
	if err != nil {
		return nil, err
	}
	if added {
		if err := casenotes.Audit(tx, subject(r, ""), by, "tag_added", "tag "+t); err != nil {
			return nil, err
		}
	}
	return tx.FindTags(orgID, env, kyc.SubjectKYCRequest, r.ID)
}

// RemoveTag removes a request's tag and returns its tags; NOT_FOUND when
// the request does not have it.
func (s *Service) RemoveTag(tx *store.Tx, orgID string, env kyc.Environment, id, tag string, by casenotes.Author) ([]string, error) {
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	t := strings.ToLower(strings.TrimSpace(tag))
	removed, err := tx.RemoveTag(orgID, env, kyc.SubjectKYCRequest, r.ID, t)
	if err != nil {
		return nil, err
	}
	if !removed {
		return nil, kyc.Errorf(kyc.ENotFound, "This request has no tag %q.", t)
	}
	if err := casenotes.Audit(tx, subject(r, ""), by, "tag_removed", "tag "+t); err != nil {
		return nil, err
	}
	return tx.FindTags(orgID, env, kyc.SubjectKYCRequest, r.ID)
}

// CommentInput is a new comment on a request.
type CommentInput struct {
	Body string
	By   casenotes.Author
	// CaseURL is the case's page in the console, for the mention e-mails.
	CaseURL string
}

// AddComment adds a comment to a request's thread (casenotes.AddComment:
// mentions e-mailed a link, the audit row proves the text).
func (s *Service) AddComment(tx *store.Tx, orgID string, env kyc.Environment, id string, in CommentInput) (*kyc.Comment, error) {
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	return casenotes.AddComment(tx, subject(r, in.CaseURL), in.Body, in.By)
}
