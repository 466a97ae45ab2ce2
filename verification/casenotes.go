package verification

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

// Author is who tags or comments: a console user or an API key.
type Author struct {
	Type kyc.CommentAuthorType
	ID   string // a user id, or "key_<id>"
	Name string // the user's name, or the API key's (or the name the client gave)
}

func (a Author) actorType() kyc.ActorType {
	if a.Type == kyc.CommentByUser {
		return kyc.ActorUser
	}
	return kyc.ActorAPIKey
}

// noteAudit writes a tag or comment change to the audit chain, as the
// request's other desk actions (assignment, claims).
func noteAudit(tx *store.Tx, r *kyc.KYCRequest, by Author, action, reason string) error {
	id, st := by.ID, string(r.Status)
	return tx.AppendAudit(store.AuditEntry{OrganizationID: r.OrganizationID, Environment: r.Environment, ResourceType: "kyc_request",
		ResourceID: r.ID, Action: action, ActorType: by.actorType(), ActorID: &id, FromStatus: &st, ToStatus: &st, Reason: &reason})
}

// AddTag tags a request (the tag is normalized: kyc.NormalizeTag) and
// returns its tags. Adding a tag it has changes nothing and audits
// nothing.
func (s *Service) AddTag(tx *store.Tx, orgID string, env kyc.Environment, id, tag string, by Author) ([]string, error) {
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
		if err := noteAudit(tx, r, by, "kyc.tag_added", "tag "+t); err != nil {
			return nil, err
		}
	}
	return tx.FindTags(orgID, env, kyc.SubjectKYCRequest, r.ID)
}

// RemoveTag removes a request's tag and returns its tags; NOT_FOUND when
// the request does not have it.
func (s *Service) RemoveTag(tx *store.Tx, orgID string, env kyc.Environment, id, tag string, by Author) ([]string, error) {
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
	if err := noteAudit(tx, r, by, "kyc.tag_removed", "tag "+t); err != nil {
		return nil, err
	}
	return tx.FindTags(orgID, env, kyc.SubjectKYCRequest, r.ID)
}

// CommentInput is a new comment on a request.
type CommentInput struct {
	Body string
	By   Author
	// CaseURL is the case's page in the console, for the mention e-mails.
	CaseURL string
}

// AddComment adds a comment to a request's thread. Each @mention
// (kyc.ParseMentions) must name an active user of the organization: they
// are e-mailed a link to the case (never the comment's text, which may
// hold personal data the colleague's role does not show). The audit row
// carries the comment's id, the mentioned users and a SHA-256 of its
// text, so that the chain proves the text without holding it.
func (s *Service) AddComment(tx *store.Tx, orgID string, env kyc.Environment, id string, in CommentInput) (*kyc.Comment, error) {
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	body, err := kyc.CheckCommentBody(in.Body)
	if err != nil {
		return nil, err
	}
	mentioned, err := resolveMentions(tx, orgID, kyc.ParseMentions(body))
	if err != nil {
		return nil, err
	}
	c := &kyc.Comment{SubjectType: kyc.SubjectKYCRequest, SubjectID: r.ID, AuthorType: in.By.Type, AuthorID: in.By.ID,
		AuthorName: in.By.Name, Body: body}
	for _, u := range mentioned {
		c.Mentions = append(c.Mentions, u.ID)
	}
	if err := tx.CreateComment(orgID, env, c); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(body))
	reason := "comment " + c.ID + " sha256:" + hex.EncodeToString(sum[:])
	if len(c.Mentions) > 0 {
		reason += " mentions " + strings.Join(c.Mentions, ",")
	}
	if err := noteAudit(tx, r, in.By, "kyc.commented", reason); err != nil {
		return nil, err
	}
	for _, u := range mentioned {
		if u.ID == in.By.ID {
			continue // writing one's own name notifies nobody
		}
		subject := fmt.Sprintf("%s mentioned you on case %s", in.By.Name, r.PublicID)
		text := fmt.Sprintf("%s mentioned you in a comment on the %s case %s.\n\nOpen the case to read it: %s\n\n"+
			"The comment is not copied into this e-mail: it may hold personal data. Sign in to read it.\n",
			in.By.Name, env, r.PublicID, in.CaseURL)
		if err := tx.QueueEmail(orgID, u.Email, subject, text); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// resolveMentions finds the users a comment mentions: by e-mail address
// (any case) or by display name (any case; a name two users share must
// be written as an address). A mention that names nobody is refused, so
// that the writer knows nobody was told.
func resolveMentions(tx *store.Tx, orgID string, ms []kyc.Mention) ([]*kyc.User, error) {
	if len(ms) == 0 {
		return nil, nil
	}
	if len(ms) > 20 {
		return nil, kyc.Invalid(kyc.FieldError{Field: "body", Message: "mentions at most 20 colleagues"})
	}
	users, err := tx.FindActiveUsers(orgID)
	if err != nil {
		return nil, err
	}
	var out []*kyc.User
	seen := map[string]bool{}
	var errs []kyc.FieldError
	for _, m := range ms {
		var found []*kyc.User
		for _, u := range users {
			if (m.Email != "" && strings.EqualFold(u.Email, m.Email)) || (m.Name != "" && strings.EqualFold(strings.TrimSpace(u.Name), m.Name)) {
				found = append(found, u)
			}
		}
		written := "@" + m.Email
		if m.Name != "" {
			written = "@[" + m.Name + "]"
		}
		switch {
		case len(found) == 0:
			errs = append(errs, kyc.FieldError{Field: "body", Message: written + " names no active user of this organization"})
		case len(found) > 1:
			errs = append(errs, kyc.FieldError{Field: "body", Message: written + " names several users: mention them by e-mail address (@name@example.com)"})
		case !seen[found[0].ID]:
			seen[found[0].ID] = true
			out = append(out, found[0])
		}
	}
	if len(errs) > 0 {
		return nil, kyc.Invalid(errs...)
	}
	return out, nil
}
