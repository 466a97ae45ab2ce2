package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"kycd/kyc"
	"kycd/server"
	"kycd/store"
)

// ApplicantsCmd groups the personal data commands of an operator (a
// data-protection officer with shell access): the same use cases as
// DELETE /v1/applicants/{id}, its legal hold and export, audited with the
// operator (cli:<user>) as the actor (docs/personal-data.md).
type ApplicantsCmd struct {
	Show        ApplicantsShowCmd        `cmd:"" help:"Print an applicant as GET /v1/applicants/{id} shows it, with when retention lets it be erased (audited as an access)."`
	Erase       ApplicantsEraseCmd       `cmd:"" help:"Erase an applicant's personal data (crypto-shredding) and print the erasure receipt as JSON; when retention still requires the data, record the request and print the date it runs."`
	Hold        ApplicantsHoldCmd        `cmd:"" help:"Put an applicant under legal hold: no erasure runs, on request or scheduled, until the hold is released."`
	ReleaseHold ApplicantsReleaseHoldCmd `cmd:"" name:"release-hold" help:"Lift an applicant's legal hold."`
	Export      ApplicantsExportCmd      `cmd:"" help:"Write everything kycd holds about an applicant to a zip (the archive of GET /v1/applicants/{id}/export), for a data subject access request (audited as an access)."`
}

// applicantFlags are the flags every applicants command takes: which
// applicant, found only in the organization's environment, as the API
// finds it with that organization's key.
type applicantFlags struct {
	dbFlag
	masterKeyFlag
	Org string `required:"" env:"KYCD_ORG" help:"Organization id (org_<ulid>)."`
	Env string `required:"" enum:"sandbox,live" env:"KYCD_ENV" help:"Environment of the applicant: sandbox or live."`
	ID  string `arg:"" name:"applicant" help:"Applicant id (app_<ulid>) or public id."`
}

func (f *applicantFlags) env() kyc.Environment { return kyc.Environment(f.Env) }

// open opens the database with its master key, as serve finds it: the
// applicant's data is sealed under it, and the audit rows are keyed with it.
func (f *applicantFlags) open(e *env) (*store.Store, error) {
	return f.openAudited(e, f.DB)
}

// find returns the applicant in the organization's environment
// (NOT_FOUND for another organization's; the other environment's is
// refused as the API refuses it, see scoped).
func (f *applicantFlags) find(e *env, s *store.Store) (*kyc.Applicant, error) {
	a, err := s.FindApplicant(e.ctx, f.Org, f.env(), f.ID)
	return a, f.scoped(err)
}

// scoped words the store's wrong-environment refusal, which speaks of the
// caller's API key, for the operator: which --env the applicant is in.
func (f *applicantFlags) scoped(err error) error {
	var ke *kyc.Error
	if errors.As(err, &ke) && ke.Code == kyc.EWrongEnvironment {
		other := kyc.Sandbox
		if f.env() == kyc.Sandbox {
			other = kyc.Live
		}
		return fmt.Errorf("applicant %s is not in the %s environment of %s (it is in %s: --env %s); nothing was done", f.ID, f.Env, f.Org, other, other)
	}
	return err
}

// lifecycleReason checks a --reason as the API checks its body's reason:
// trimmed, at most server.MaxLifecycleReason characters.
func lifecycleReason(v string) (string, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return "", errors.New("--reason must not be empty: it is kept in the audit log and the receipt")
	case utf8.RuneCountInString(v) > server.MaxLifecycleReason:
		return "", fmt.Errorf("--reason must be at most %d characters", server.MaxLifecycleReason)
	}
	return v, nil
}

// printJSON writes v indented, with a final newline.
func printJSON(e *env, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "%s\n", b)
	return err
}

// ApplicantsShowCmd prints one applicant.
type ApplicantsShowCmd struct {
	applicantFlags
}

// applicantShow is what show prints: the API's applicant, and when
// retention lets its data be erased on request.
type applicantShow struct {
	Applicant   any  `json:"applicant"`
	ErasableNow bool `json:"erasableNow"`
	// ErasableFrom is when retention lets an erasure on request run;
	// omitted when it may run now or the applicant is erased.
	ErasableFrom string `json:"erasableFrom,omitempty"`
}

// Run prints the applicant as JSON. It shows names and contact details,
// so it is recorded as an access, as the console's applicant page is.
func (c *ApplicantsShowCmd) Run(e *env) error {
	s, err := c.open(e)
	if err != nil {
		return err
	}
	defer s.Close()
	a, err := c.find(e, s)
	if err != nil {
		return err
	}
	if err := s.RecordAccess(e.ctx, a.OrganizationID, a.Environment, "applicant", a.ID, store.AccessApplicantViewed, "kycd applicants show"); err != nil {
		return err
	}
	out := applicantShow{Applicant: server.ApplicantView(a)}
	if a.ErasedAt == nil {
		from, _, err := s.ErasableFrom(e.ctx, a)
		if err != nil {
			return err
		}
		out.ErasableNow = !from.After(s.Now())
		if !out.ErasableNow {
			out.ErasableFrom = kyc.FormatTime(from)
		}
	}
	return printJSON(e, out)
}

// ApplicantsEraseCmd erases an applicant on request.
type ApplicantsEraseCmd struct {
	applicantFlags
	Reason string `required:"" help:"Why (e.g. the data subject's request and its reference); kept in the receipt and the audit log."`
}

// Run erases as DELETE /v1/applicants/{id} does (store.EraseApplicant,
// rule data_subject_request): the receipt as JSON when done (the same
// receipt again for an applicant already erased); the API's 202 answer,
// with erasureScheduledAt, when retention defers it; legal hold refuses.
func (c *ApplicantsEraseCmd) Run(e *env) error {
	reason, err := lifecycleReason(c.Reason)
	if err != nil {
		return err
	}
	s, err := c.open(e)
	if err != nil {
		return err
	}
	defer s.Close()
	rec, err := s.EraseApplicant(e.ctx, store.ErasureRequest{OrganizationID: c.Org, Environment: c.env(), ApplicantID: c.ID,
		Rule: kyc.ErasureOnRequest, Reason: &reason})
	err = c.scoped(err)
	var deferred *kyc.ErasureDeferred
	if errors.As(err, &deferred) {
		fmt.Fprintf(e.stderr, "kycd: retention still requires this applicant's data: the erasure is recorded and runs on %s (kycd serve's daily retention job)\n",
			kyc.FormatTime(deferred.NotBefore))
		return printJSON(e, server.ErasureScheduledView(c.ID, deferred))
	}
	if err != nil {
		if rec != nil {
			// Committed, but the key was not destroyed: print the receipt
			// and fail, so that the operator knows to look.
			_ = printJSON(e, rec)
		}
		return err
	}
	return printJSON(e, rec)
}

// ApplicantsHoldCmd sets a legal hold.
type ApplicantsHoldCmd struct {
	applicantFlags
	Reason string `required:"" help:"Why (e.g. the authority's request and its reference); kept in the audit log."`
}

// Run sets the hold and prints the applicant's hold.
func (c *ApplicantsHoldCmd) Run(e *env) error {
	return setLegalHold(e, &c.applicantFlags, c.Reason, true)
}

// ApplicantsReleaseHoldCmd lifts a legal hold.
type ApplicantsReleaseHoldCmd struct {
	applicantFlags
	Reason string `required:"" help:"Why the hold ends; kept in the audit log."`
}

// Run lifts the hold.
func (c *ApplicantsReleaseHoldCmd) Run(e *env) error {
	return setLegalHold(e, &c.applicantFlags, c.Reason, false)
}

// setLegalHold is POST /v1/applicants/{id}/legal-hold[/lift] for the
// operator: one transaction, tx.SetLegalHold, audited with the reason.
func setLegalHold(e *env, f *applicantFlags, reasonFlag string, hold bool) error {
	reason, err := lifecycleReason(reasonFlag)
	if err != nil {
		return err
	}
	s, err := f.open(e)
	if err != nil {
		return err
	}
	defer s.Close()
	var a *kyc.Applicant
	if err := s.InTx(e.ctx, func(tx *store.Tx) (err error) {
		a, err = tx.SetLegalHold(f.Org, f.env(), f.ID, hold, reason)
		return err
	}); err != nil {
		return f.scoped(err)
	}
	if hold {
		fmt.Fprintf(e.stdout, "%s: legal hold set: no erasure runs until it is released\n", a.ID)
	} else {
		fmt.Fprintf(e.stdout, "%s: legal hold released\n", a.ID)
	}
	return nil
}

// ApplicantsExportCmd writes an applicant's export archive.
type ApplicantsExportCmd struct {
	applicantFlags
	Out       string `required:"" type:"path" help:"The zip file to write (created 0600; an existing file is not overwritten)."`
	PortalURL string `name:"portal-url" env:"KYCD_PORTAL_URL" help:"serve's portal URL, to write the link of a request whose portal link is still open (default <base-url>/portal; without either the link is left out)."`
	BaseURL   string `name:"base-url" env:"KYCD_BASE_URL" help:"serve's --base-url."`
}

// Run builds the archive with the API's server.Exporter, which audits it
// (applicant.exported, the operator as actor) before it is returned.
func (c *ApplicantsExportCmd) Run(e *env) error {
	s, err := c.open(e)
	if err != nil {
		return err
	}
	defer s.Close()
	a, err := c.find(e, s)
	if err != nil {
		return err
	}
	// Opened before the export is built and audited: a wrong --out fails
	// without recording an access that handed nothing out.
	f, err := os.OpenFile(c.Out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(c.Out)
		}
	}()
	x := server.Exporter{Store: s, Now: s.Now, PortalURL: c.portalURL()}
	archive, err := x.Export(e.ctx, a)
	if err != nil {
		return err
	}
	if _, err := f.Write(archive); err != nil {
		return fmt.Errorf("write %s: %w", c.Out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", c.Out, err)
	}
	ok = true
	fmt.Fprintf(e.stdout, "%s: %d bytes written to %s\n", a.ID, len(archive), c.Out)
	return nil
}

// portalURL makes portal links as serve does, nil when neither URL is given.
func (c *ApplicantsExportCmd) portalURL() func(string) string {
	base := strings.TrimRight(c.PortalURL, "/")
	if base == "" && c.BaseURL != "" {
		base = strings.TrimRight(c.BaseURL, "/") + "/portal"
	}
	if base == "" {
		return nil
	}
	return func(token string) string { return base + "/" + token }
}
