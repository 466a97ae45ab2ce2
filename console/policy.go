package console

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"kycd/decision"
	"kycd/kyc"
	"kycd/store"
)

// The decision policy editor: the policy as JSON (docs/decisions.md's format,
// the same text kycd orgs update --policy reads), checked with every
// problem shown at its member, and a dry run over the latest decided
// requests before anything is saved. Saving is refused unless the page
// that sends it showed the dry run of exactly that text against the
// policy still in force.

type policyPage struct {
	Text    string // the editor's content
	Custom  bool   // the organization has its own policy (else the built-in default)
	Version string // the version in force
	// UseDefault: the text is the built-in default, and saving it goes
	// back to following kycd's default (also when kycd changes it).
	UseDefault bool
	DryEnv     kyc.Environment
	Problems   []problem
	Dry        *decision.DryRun
	Unchanged  bool   // the proposal is the policy in force
	Hash, Base string // the previewed text's and the policy in force's fingerprints
	Codes      []codeRow
}

// problem is a field error with the line of the text it is on (0: the
// whole text, or not found).
type problem struct {
	Field, Message string
	Line           int
}

// codeRow is one reason code and what the policy in force does with it.
type codeRow struct {
	Code   string
	Action decision.Action
	Weight float64
}

// handlePolicy handles "GET /console/settings/policy": the editor with
// the policy in force.
func (c *console) handlePolicy(w http.ResponseWriter, r *http.Request) error {
	d, err := c.policyPageFor(r)
	if err != nil {
		return err
	}
	if e := formError(r); e != nil {
		// Back from a refused preview or save: what was typed, with each
		// problem beside its line.
		d.Text, d.UseDefault = r.PostFormValue("policy"), r.PostFormValue("default") == "true"
		for _, fe := range e.Details {
			d.Problems = append(d.Problems, problem{Field: fe.Field, Message: fe.Message, Line: memberLine(d.Text, fe.Field)})
		}
		// In the order they are written, to be fixed top to bottom.
		sort.SliceStable(d.Problems, func(i, j int) bool { return d.Problems[i].Line < d.Problems[j].Line })
		if len(d.Problems) > 0 {
			return c.render(w, r, http.StatusOK, "policy.html", &page{Title: "Decision policy", Section: "settings", Data: d,
				Error: &kyc.Error{Code: e.Code, Message: plural(len(d.Problems), "problem") + " in the policy, listed with the editor: nothing was checked or saved."}})
		}
	}
	return c.renderPolicy(w, r, d)
}

func (c *console) renderPolicy(w http.ResponseWriter, r *http.Request, d *policyPage) error {
	return c.render(w, r, http.StatusOK, "policy.html", &page{Title: "Decision policy", Section: "settings", Data: d})
}

// policyPageFor is the editor's page for the policy in force.
func (c *console) policyPageFor(r *http.Request) (*policyPage, error) {
	set, err := c.store.FindOrgSettings(r.Context(), sessionFrom(r).User.OrganizationID)
	if err != nil {
		return nil, err
	}
	cur, err := c.policyOf(r)
	if err != nil {
		return nil, err
	}
	d := &policyPage{Custom: set.DecisionPolicy != nil, Version: cur.Version, DryEnv: kyc.Live, Base: fingerprint(set.DecisionPolicy)}
	if d.Text, err = indentPolicy(cur); err != nil {
		return nil, err
	}
	for _, code := range decision.AllCodes {
		d.Codes = append(d.Codes, codeRow{Code: code, Action: cur.Actions[code], Weight: cur.Weights[code]})
	}
	return d, nil
}

// policyOf is the organization's policy in force (the default when it has
// none of its own).
func (c *console) policyOf(r *http.Request) (*decision.Policy, error) {
	return decision.StorePolicy(c.store)(r.Context(), sessionFrom(r).User.OrganizationID)
}

// handlePolicyPreview handles "POST /console/settings/policy/preview":
// check the text and show what it would change on the latest decided
// requests, with the button that saves it.
func (c *console) handlePolicyPreview(w http.ResponseWriter, r *http.Request) error {
	d, _, err := c.preview(w, r)
	if err != nil {
		return err
	}
	return c.renderPolicy(w, r, d)
}

// preview checks the form's policy and runs the dry run; it returns the
// page and the parsed proposal.
func (c *console) preview(w http.ResponseWriter, r *http.Request) (*policyPage, *decision.Policy, error) {
	d, err := c.policyPageFor(r)
	if err != nil {
		return nil, nil, err
	}
	if err := readPolicyForm(w, r); err != nil {
		return nil, nil, err
	}
	d.Text, d.UseDefault = r.PostFormValue("policy"), r.PostFormValue("default") == "true"
	if d.UseDefault {
		if d.Text, err = indentPolicy(decision.DefaultPolicy()); err != nil {
			return nil, nil, err
		}
	}
	if e := r.PostFormValue("env"); e == string(kyc.Sandbox) {
		d.DryEnv = kyc.Sandbox
	}
	cur, err := c.policyOf(r)
	if err != nil {
		return nil, nil, err
	}
	prop, err := decision.ParsePolicy([]byte(d.Text))
	var pe *decision.PolicyError
	if errors.As(err, &pe) {
		return nil, nil, kyc.Invalid(pe.Problems...)
	}
	if err != nil {
		return nil, nil, err
	}
	if !d.UseDefault {
		if err := decision.CheckNewVersion(cur, prop); errors.As(err, &pe) {
			return nil, nil, kyc.Invalid(pe.Problems...)
		}
	}
	// The floor is decision's to say: a policy that would approve a live
	// request below it is refused, each code with why.
	if err := decision.CheckFloor(prop); errors.As(err, &pe) {
		return nil, nil, kyc.Invalid(pe.Problems...)
	}
	same := decision.Same(cur, prop)
	d.Unchanged = same && d.UseDefault == !d.Custom
	if d.Dry, err = decision.DryRunPolicy(r.Context(), c.store, sessionFrom(r).User.OrganizationID, d.DryEnv, cur, prop); err != nil {
		return nil, nil, err
	}
	d.Hash = previewHash(d.Text, d.UseDefault)
	return d, prop, nil
}

// maxPolicyForm bounds the policy form: the built-in policy is about
// 2 KB of JSON; a hundred times that is no policy.
const maxPolicyForm = 256 << 10

// readPolicyForm reads the form within maxPolicyForm.
func readPolicyForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxPolicyForm)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return kyc.Invalid(kyc.FieldError{Field: "policy", Message: fmt.Sprintf("is larger than %d KB", maxPolicyForm>>10)})
		}
		return kyc.Errorf(kyc.EValidation, "The form could not be read.")
	}
	return nil
}

// handlePolicySave handles "POST /console/settings/policy": save the
// previewed policy. A text the page did not preview is previewed instead
// (nothing saved); a policy changed by someone else since the preview is
// refused.
func (c *console) handlePolicySave(w http.ResponseWriter, r *http.Request) error {
	d, prop, err := c.preview(w, r)
	if err != nil {
		return err
	}
	if r.PostFormValue("previewed") != d.Hash {
		return c.render(w, r, http.StatusOK, "policy.html", &page{Title: "Decision policy", Section: "settings", Data: d,
			Notice: "Nothing is saved yet. Here is what this policy would change; save it below if that is what you want."})
	}
	if r.PostFormValue("base") != d.Base {
		return &kyc.Error{Code: kyc.EConflict, Message: "Someone changed the policy after your preview. Look at the policy in force and preview your change again."}
	}
	if d.Unchanged {
		return redirect(w, r, "/console/settings/policy", "policy-unchanged")
	}
	var stored []byte
	if !d.UseDefault {
		if stored, err = json.Marshal(prop); err != nil {
			return err
		}
	}
	org := sessionFrom(r).User.OrganizationID
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		// The check above read the policy outside this transaction: read
		// it again under the write lock, so two saves cannot both pass.
		set, err := tx.FindOrgSettings(org)
		if err != nil {
			return err
		}
		if fingerprint(set.DecisionPolicy) != d.Base {
			return &kyc.Error{Code: kyc.EConflict, Message: "Someone changed the policy after your preview. Look at the policy in force and preview your change again."}
		}
		return tx.SetDecisionPolicy(org, stored)
	}); err != nil {
		return err
	}
	return redirect(w, r, "/console/settings/policy", "policy-saved")
}

func indentPolicy(p *decision.Policy) (string, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	return string(b), err
}

// fingerprint identifies the stored policy (nil: the default).
func fingerprint(stored []byte) string {
	if stored == nil {
		return "default"
	}
	sum := sha256.Sum256(stored)
	return hex.EncodeToString(sum[:12])
}

// previewHash identifies the previewed text; the browser's line endings
// (CRLF in a form) are made one with the server's.
func previewHash(text string, useDefault bool) string {
	sum := sha256.Sum256([]byte(strings.ReplaceAll(text, "\r\n", "\n") + map[bool]string{true: "\x00default", false: ""}[useDefault]))
	return hex.EncodeToString(sum[:16])
}

// memberLine is the line of text where the member at path (a.b: member b
// of member a's object; "policy" for the whole text) is written, or 0. It
// follows the keys in order, which is enough to point a person at the
// right line.
func memberLine(text, path string) int {
	if path == "policy" || path == "" {
		return 0 // a syntax error's message says where it is
	}
	at := 0
	for _, seg := range strings.Split(path, ".") {
		i := strings.Index(text[at:], `"`+seg+`"`)
		if i < 0 {
			return 0
		}
		at += i + len(seg) + 2
	}
	return strings.Count(text[:at], "\n") + 1
}
