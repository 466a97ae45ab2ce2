package console

import (
	"net/http"
	"strings"

	"kycd/casenotes"
	"kycd/kyc"
	"kycd/store"
	"kycd/verification"
)

// Tags, comments and reason codes on the case page and in settings.

// commentView is one comment as the case page shows it.
type commentView struct {
	kyc.Comment
	Mentioned []string // the names of the users it mentioned
}

// notesView is a case's tags and comments (a KYC request's or an AML
// case's: the "comments" template shows both).
type notesView struct {
	Tags     []string
	Comments []commentView
	// CanEdit: the role works cases (tags and comments). ShowComments:
	// the role may see personal data, which comments may hold.
	CanEdit, ShowComments bool
	Count                 int    // comments, when they are not shown
	Role                  string // the user's, to say why comments are hidden
	Action                string // where the comment form posts
	Form                  struct{ Tag, Body string }
}

// notes fills a case's tags and comments; action is the comment form's
// address.
func (c *console) notes(r *http.Request, org string, e kyc.Environment, typ kyc.SubjectType, id, action string, names map[string]string) (*notesView, error) {
	u := sessionFrom(r).User
	n := &notesView{CanEdit: u.Can(kyc.PermDecide), ShowComments: u.Can(kyc.PermPersonalData), Role: string(u.Role), Action: action}
	var err error
	if n.Tags, err = c.store.FindTags(r.Context(), org, e, typ, id); err != nil {
		return nil, err
	}
	cs, err := c.store.FindComments(r.Context(), org, e, typ, id)
	if err != nil {
		return nil, err
	}
	n.Count = len(cs)
	if n.ShowComments {
		for _, cm := range cs {
			v := commentView{Comment: cm}
			for _, id := range cm.Mentions {
				v.Mentioned = append(v.Mentioned, actorName(names, &id))
			}
			n.Comments = append(n.Comments, v)
		}
	}
	if formError(r) != nil {
		n.Form.Tag, n.Form.Body = r.PostFormValue("tag"), r.PostFormValue("body")
	}
	return n, nil
}

// mentionNotice is the notice after a comment: "mentioned" when it
// notified someone other than its author.
func mentionNotice(cm *kyc.Comment, author string) string {
	for _, m := range cm.Mentions {
		if m != author {
			return "mentioned"
		}
	}
	return "commented"
}

func userAuthor(u *kyc.User) casenotes.Author {
	return casenotes.Author{Type: kyc.CommentByUser, ID: u.ID, Name: u.Name}
}

// handleTagAdd handles "POST /console/{env}/cases/{id}/tags".
func (c *console) handleTagAdd(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	id := r.PathValue("id")
	err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := c.kyc.AddTag(tx, sess.User.OrganizationID, env(r), id, r.PostFormValue("tag"), userAuthor(sess.User))
		return err
	})
	if err != nil {
		return err
	}
	return redirect(w, r, caseURL(env(r), id)+"#notes", "tagged")
}

// handleTagRemove handles "POST /console/{env}/cases/{id}/tags/remove".
func (c *console) handleTagRemove(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	id := r.PathValue("id")
	err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := c.kyc.RemoveTag(tx, sess.User.OrganizationID, env(r), id, r.PostFormValue("tag"), userAuthor(sess.User))
		return err
	})
	if err != nil {
		return err
	}
	return redirect(w, r, caseURL(env(r), id)+"#notes", "untagged")
}

// handleComment handles "POST /console/{env}/cases/{id}/comments".
func (c *console) handleComment(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	id := r.PathValue("id")
	var cm *kyc.Comment
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		cm, err = c.kyc.AddComment(tx, sess.User.OrganizationID, env(r), id, verification.CommentInput{Body: r.PostFormValue("body"),
			By: userAuthor(sess.User), CaseURL: c.baseURL + caseURL(env(r), id)})
		return err
	})
	if err != nil {
		return err
	}
	return redirect(w, r, caseURL(env(r), id)+"#comments", mentionNotice(cm, sess.User.ID))
}

// reasonChoice is a code the decision form offers.
type reasonChoice struct {
	kyc.ReasonCode
	Checked bool
}

// reasonCatalog is the environment's codes: built in, then the
// organization's.
func (c *console) reasonCatalog(r *http.Request, org string, e kyc.Environment) ([]kyc.ReasonCode, error) {
	own, err := c.store.FindReasonCodes(r.Context(), org, e)
	if err != nil {
		return nil, err
	}
	return append(append([]kyc.ReasonCode{}, kyc.BuiltInReasonCodes...), own...), nil
}

// reasonLabel is a decision code in words, from the catalog.
func reasonLabel(catalog []kyc.ReasonCode, code string) string {
	for _, c := range catalog {
		if c.Code == code {
			return c.Label
		}
	}
	return code
}

// reasonCodesSettings is the settings page's list per environment.
type reasonCodesSettings struct {
	Env   kyc.Environment
	Codes []kyc.ReasonCode
}

// handleReasonCodeAdd handles "POST /console/settings/reason-codes":
// environment, code and label.
func (c *console) handleReasonCodeAdd(w http.ResponseWriter, r *http.Request) error {
	org := sessionFrom(r).User.OrganizationID
	e := kyc.Environment(r.PostFormValue("environment"))
	code := strings.ToUpper(strings.TrimSpace(r.PostFormValue("code")))
	if e != kyc.Live && e != kyc.Sandbox {
		return kyc.Invalid(kyc.FieldError{Field: "environment", Message: "choose live or sandbox"})
	}
	label, err := kyc.CheckReasonCode(code, r.PostFormValue("label"))
	if err != nil {
		return err
	}
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := tx.CreateReasonCode(org, e, code, label)
		return err
	}); err != nil {
		return err
	}
	return redirect(w, r, "/console/settings#reason-codes", "code-added")
}

// handleReasonCodeRemove handles "POST /console/settings/reason-codes/remove":
// environment and code; built-in codes cannot be removed.
func (c *console) handleReasonCodeRemove(w http.ResponseWriter, r *http.Request) error {
	org := sessionFrom(r).User.OrganizationID
	e := kyc.Environment(r.PostFormValue("environment"))
	code := r.PostFormValue("code")
	switch {
	case e != kyc.Live && e != kyc.Sandbox:
		return kyc.Invalid(kyc.FieldError{Field: "environment", Message: "choose live or sandbox"})
	case kyc.BuiltInReasonCode(code):
		return kyc.Invalid(kyc.FieldError{Field: "code", Message: "is built in: it cannot be removed"})
	case !kyc.ValidReasonCodeShape(code):
		return kyc.Invalid(kyc.FieldError{Field: "code", Message: "choose one of the organization's codes"})
	}
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error { return tx.DeleteReasonCode(org, e, code) }); err != nil {
		return err
	}
	return redirect(w, r, "/console/settings#reason-codes", "code-removed")
}
