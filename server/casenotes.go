package server

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"kycd/aml"
	"kycd/casenotes"
	"kycd/kyc"
	"kycd/store"
	"kycd/verification"
)

// Tags and comments on a KYC request, and the reason codes decisions
// carry, for integrators (the console has its own forms).

type commentJSON struct {
	ID         string   `json:"id"`
	Object     string   `json:"object"`
	AuthorType string   `json:"authorType"`
	AuthorID   string   `json:"authorId"`
	AuthorName string   `json:"authorName"`
	Body       string   `json:"body"`
	Mentions   []string `json:"mentions"`
	CreatedAt  string   `json:"createdAt"`
}

func toCommentJSON(c kyc.Comment) commentJSON {
	m := c.Mentions
	if m == nil {
		m = []string{}
	}
	return commentJSON{ID: c.ID, Object: "comment", AuthorType: string(c.AuthorType), AuthorID: c.AuthorID, AuthorName: c.AuthorName,
		Body: c.Body, Mentions: m, CreatedAt: kyc.FormatTime(c.CreatedAt)}
}

// keyAuthor is the API key as a comment's or tag's author: named by the
// body's authorName when given (the person at the integrator), else by
// the key's name.
func keyAuthor(key *kyc.APIKey, name *string) casenotes.Author {
	n := key.Name
	if name != nil {
		n = strings.TrimSpace(*name) + " (key_" + key.ID + ")"
	} else if n == "" {
		n = "API key key_" + key.ID
	}
	return casenotes.Author{Type: kyc.CommentByAPIKey, ID: "key_" + key.ID, Name: n}
}

// checkAuthorName validates the optional authorName field.
func checkAuthorName(name *string) []kyc.FieldError {
	if name == nil {
		return nil
	}
	if strings.TrimSpace(*name) == "" || utf8.RuneCountInString(*name) > 200 {
		return []kyc.FieldError{{Field: "authorName", Message: "must be 1 to 200 characters (the person writing)"}}
	}
	if _, bad := kyc.InvisibleRune(*name); bad {
		return []kyc.FieldError{{Field: "authorName", Message: "must not contain invisible or text-direction characters"}}
	}
	return nil
}

// writeComments answers with a thread.
func writeComments(w http.ResponseWriter, cs []kyc.Comment) {
	out := make([]commentJSON, len(cs))
	for i, c := range cs {
		out[i] = toCommentJSON(c)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// readComment reads a new comment's body {"body", "authorName"?} and
// returns its text and author.
func readComment(w http.ResponseWriter, r *http.Request) (string, casenotes.Author, error) {
	o, err := readObject(w, r)
	if err != nil {
		return "", casenotes.Author{}, err
	}
	body, name := o.str("body"), o.str("authorName")
	var errs []kyc.FieldError
	if body == nil {
		errs = append(errs, kyc.FieldError{Field: "body", Message: "is required: write the comment"})
	}
	errs = append(errs, checkAuthorName(name)...)
	if err := o.check(errs); err != nil {
		return "", casenotes.Author{}, err
	}
	return *body, keyAuthor(keyFrom(r.Context()), name), nil
}

// handleCommentList handles "GET /v1/kyc-requests/{id}/comments": the
// thread, oldest first.
func (s *Server) handleCommentList(w http.ResponseWriter, r *http.Request) error {
	req, err := s.findKYC(r)
	if err != nil {
		return err
	}
	cs, err := s.store.FindComments(r.Context(), req.OrganizationID, req.Environment, kyc.SubjectKYCRequest, req.ID)
	if err != nil {
		return err
	}
	writeComments(w, cs)
	return nil
}

// handleCommentCreate handles "POST /v1/kyc-requests/{id}/comments":
// body {"body", "authorName"?}.
func (s *Server) handleCommentCreate(w http.ResponseWriter, r *http.Request) error {
	body, by, err := readComment(w, r)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusCreated, func(tx *store.Tx) (any, error) {
		id := r.PathValue("id")
		req, err := tx.FindKYCRequest(key.OrganizationID, key.Environment, id)
		if err != nil {
			return nil, err
		}
		c, err := s.kyc.AddComment(tx, key.OrganizationID, key.Environment, req.ID, verification.CommentInput{Body: body,
			By: by, CaseURL: s.baseURL + "/console/" + string(key.Environment) + "/cases/" + req.ID})
		if err != nil {
			return nil, err
		}
		return toCommentJSON(*c), nil
	})
}

// handleAMLCaseCommentList handles "GET /v1/aml-cases/{id}/comments".
func (s *Server) handleAMLCaseCommentList(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	cs, err := s.store.FindAMLCase(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	comments, err := s.store.FindComments(r.Context(), cs.OrganizationID, cs.Environment, kyc.SubjectAMLCase, cs.ID)
	if err != nil {
		return err
	}
	writeComments(w, comments)
	return nil
}

// handleAMLCaseCommentCreate handles "POST /v1/aml-cases/{id}/comments":
// body {"body", "authorName"?}, as on a KYC request.
func (s *Server) handleAMLCaseCommentCreate(w http.ResponseWriter, r *http.Request) error {
	body, by, err := readComment(w, r)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusCreated, func(tx *store.Tx) (any, error) {
		id := r.PathValue("id")
		c, err := s.aml.AddCaseComment(tx, key.OrganizationID, key.Environment, id, aml.CaseComment{Body: body, By: by,
			CaseURL: s.baseURL + "/console/" + string(key.Environment) + "/aml-cases/" + id})
		if err != nil {
			return nil, err
		}
		return toCommentJSON(*c), nil
	})
}

type tagsJSON struct {
	Tags []string `json:"tags"`
}

// handleTagList handles "GET /v1/kyc-requests/{id}/tags".
func (s *Server) handleTagList(w http.ResponseWriter, r *http.Request) error {
	req, err := s.findKYC(r)
	if err != nil {
		return err
	}
	tags, err := s.store.FindTags(r.Context(), req.OrganizationID, req.Environment, kyc.SubjectKYCRequest, req.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, tagsJSON{Tags: tags})
	return nil
}

// handleTagAdd handles "POST /v1/kyc-requests/{id}/tags": body {"tag"};
// adding a tag the request has is a no-op. Answers with every tag.
func (s *Server) handleTagAdd(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	tag := o.str("tag")
	var errs []kyc.FieldError
	if tag == nil {
		errs = append(errs, kyc.FieldError{Field: "tag", Message: "is required, e.g. high-value"})
	}
	if err := o.check(errs); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		tags, err := s.kyc.AddTag(tx, key.OrganizationID, key.Environment, r.PathValue("id"), *tag, keyAuthor(key, nil))
		if err != nil {
			return nil, err
		}
		return tagsJSON{Tags: tags}, nil
	})
}

// handleTagRemove handles "DELETE /v1/kyc-requests/{id}/tags/{tag}".
func (s *Server) handleTagRemove(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	var tags []string
	err := s.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		tags, err = s.kyc.RemoveTag(tx, key.OrganizationID, key.Environment, r.PathValue("id"), r.PathValue("tag"), keyAuthor(key, nil))
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, tagsJSON{Tags: tags})
	return nil
}

type reasonCodeJSON struct {
	Object    string  `json:"object"`
	Code      string  `json:"code"`
	Label     string  `json:"label"`
	BuiltIn   bool    `json:"builtIn"`
	CreatedAt *string `json:"createdAt"`
}

func toReasonCodeJSON(c kyc.ReasonCode) reasonCodeJSON {
	return reasonCodeJSON{Object: "reason_code", Code: c.Code, Label: c.Label, BuiltIn: c.BuiltIn, CreatedAt: timePtr(c.CreatedAt)}
}

// handleReasonCodeList handles "GET /v1/reason-codes": the built-in codes,
// then the environment's own, by code.
func (s *Server) handleReasonCodeList(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	own, err := s.store.FindReasonCodes(r.Context(), key.OrganizationID, key.Environment)
	if err != nil {
		return err
	}
	out := []reasonCodeJSON{}
	for _, c := range append(append([]kyc.ReasonCode{}, kyc.BuiltInReasonCodes...), own...) {
		out = append(out, toReasonCodeJSON(c))
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}

// handleReasonCodeCreate handles "POST /v1/reason-codes": body {"code",
// "label"}.
func (s *Server) handleReasonCodeCreate(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	code, label := o.str("code"), o.str("label")
	var errs []kyc.FieldError
	if code == nil {
		errs = append(errs, kyc.FieldError{Field: "code", Message: "is required, e.g. SOURCE_OF_FUNDS_UNCLEAR"})
	}
	if label == nil {
		errs = append(errs, kyc.FieldError{Field: "label", Message: "is required: say the code in words"})
	}
	if err := o.check(errs); err != nil {
		return err
	}
	l, err := kyc.CheckReasonCode(*code, *label)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusCreated, func(tx *store.Tx) (any, error) {
		c, err := tx.CreateReasonCode(key.OrganizationID, key.Environment, *code, l)
		if err != nil {
			return nil, err
		}
		return toReasonCodeJSON(*c), nil
	})
}

// handleReasonCodeDelete handles "DELETE /v1/reason-codes/{code}": a
// built-in code cannot be removed (422); decisions keep the codes they
// carry.
func (s *Server) handleReasonCodeDelete(w http.ResponseWriter, r *http.Request) error {
	code := r.PathValue("code")
	if kyc.BuiltInReasonCode(code) {
		return kyc.Errorf(kyc.EUnprocessable, "%s is a built-in reason code: it cannot be removed.", code)
	}
	key := keyFrom(r.Context())
	if err := s.store.InTx(r.Context(), func(tx *store.Tx) error {
		return tx.DeleteReasonCode(key.OrganizationID, key.Environment, code)
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
