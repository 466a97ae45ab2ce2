// Package casenotes is the comment thread and the tags every kind of case
// shares (a KYC request, an AML case): who may be mentioned, the e-mail a
// mention sends and the audit row each change writes. The callers find
// the case in the organization and environment first and describe it as
// a Subject.
package casenotes

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

// ActorType is the author as the audit chain names actors.
func (a Author) ActorType() kyc.ActorType {
	if a.Type == kyc.CommentByUser {
		return kyc.ActorUser
	}
	return kyc.ActorAPIKey
}

// Subject is the case a note is on, found by the caller in the
// organization and environment.
type Subject struct {
	OrganizationID string
	Environment    kyc.Environment
	Type           kyc.SubjectType
	ID             string
	// Name is how a mention e-mail names the case ("case KYC-3F2A",
	// "AML case amc_…"): never the person's name.
	Name string
	// AuditResource and AuditPrefix name the audit rows: resource type
	// ("kyc_request", "aml_case") and the action's prefix ("kyc.",
	// "aml_case."), as the case's other audit rows.
	AuditResource, AuditPrefix string
	Status                     string // the case's status, unchanged by a note
	URL                        string // the case's page in the console, for mention e-mails
}

// Audit writes a note's change (action without the prefix, e.g.
// "commented") to the audit chain, as the case's other actions.
func Audit(tx *store.Tx, s Subject, by Author, action, reason string) error {
	id, st := by.ID, s.Status
	return tx.AppendAudit(store.AuditEntry{OrganizationID: s.OrganizationID, Environment: s.Environment, ResourceType: s.AuditResource,
		ResourceID: s.ID, Action: s.AuditPrefix + action, ActorType: by.ActorType(), ActorID: &id, FromStatus: &st, ToStatus: &st, Reason: &reason})
}

// AddComment adds a comment to a case's thread. Each @mention
// (kyc.ParseMentions) must name an active user of the organization: they
// are e-mailed a link to the case (never the comment's text, which may
// hold personal data the colleague's role does not show). The audit row
// carries the comment's id, the mentioned users and a SHA-256 of its
// text, so that the chain proves the text without holding it.
func AddComment(tx *store.Tx, s Subject, body string, by Author) (*kyc.Comment, error) {
	body, err := kyc.CheckCommentBody(body)
	if err != nil {
		return nil, err
	}
	mentioned, err := resolveMentions(tx, s.OrganizationID, kyc.ParseMentions(body))
	if err != nil {
		return nil, err
	}
	c := &kyc.Comment{SubjectType: s.Type, SubjectID: s.ID, AuthorType: by.Type, AuthorID: by.ID, AuthorName: by.Name, Body: body}
	for _, u := range mentioned {
		c.Mentions = append(c.Mentions, u.ID)
	}
	if err := tx.CreateComment(s.OrganizationID, s.Environment, c); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(body))
	reason := "comment " + c.ID + " sha256:" + hex.EncodeToString(sum[:])
	if len(c.Mentions) > 0 {
		reason += " mentions " + strings.Join(c.Mentions, ",")
	}
	if err := Audit(tx, s, by, "commented", reason); err != nil {
		return nil, err
	}
	for _, u := range mentioned {
		if u.ID == by.ID {
			continue // writing one's own name notifies nobody
		}
		subject := fmt.Sprintf("%s mentioned you on %s", by.Name, s.Name)
		text := fmt.Sprintf("%s mentioned you in a comment on the %s %s.\n\nOpen the case to read it: %s\n\n"+
			"The comment is not copied into this e-mail: it may hold personal data. Sign in to read it.\n",
			by.Name, s.Environment, s.Name, s.URL)
		if err := tx.QueueEmail(s.OrganizationID, u.Email, subject, text); err != nil {
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
