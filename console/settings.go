package console

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"kycd/branding"
	"kycd/kyc"
	"kycd/locale"
	"kycd/screening"
	"kycd/store"
)

// The settings screens change what kycd orgs update changes, through the
// same store use cases and validation; each change is audited with the
// signed-in admin as its actor. Settings are the organization's, for
// both environments, so their pages are outside /console/{env}/.

type settingsPage struct {
	Branding    *kyc.Branding
	BrandForm   brandForm // the branding form's values (after an error: as sent)
	Swatch      template.URL
	Locales     []*locale.Catalog
	Threshold   string // "" for the default
	Default     string // the default threshold, for the hint
	Kinds       []string
	KindsCustom bool     // false: sanctions + every kind with a list
	Listed      []string // kinds the installation has a list of
	Unlisted    []string // kinds without one
	FourEyes    bool
	RoundRobin  bool
	InTurn      []*kyc.User // reviewers who are in, when round-robin is on
	SLALive     int         // review due time in hours (0: none)
	SLASandbox  int
	RequireTOTP bool
	Policy      policySummary
	// PersonalData is how compliance reports print personal data.
	PersonalData kyc.PersonalData
	// ContactEmail is the organization's contact address (after an
	// error: as sent).
	ContactEmail string
	// ReasonCodes are each environment's own decision codes, beside the
	// built-in ones; CodeForm the add form's values (after an error: as
	// sent).
	BuiltInCodes []kyc.ReasonCode
	ReasonCodes  []reasonCodesSettings
	CodeForm     struct{ Env, Code, Label string }
	// Retention is the retention form's periods (settings_retention.go).
	Retention []retentionField
}

type brandForm struct {
	DisplayName, SupportEmail, PrivacyURL, BrandColor, DefaultLocale string
}

// policySummary is the settings page's line about the decision policy.
type policySummary struct {
	Custom  bool
	Version string
}

// handleSettings handles "GET /console/settings": the organization's
// branding, screening, review and sign-in settings, and a link to the
// decision policy.
func (c *console) handleSettings(w http.ResponseWriter, r *http.Request) error {
	org := sessionFrom(r).User.OrganizationID
	ctx := r.Context()
	b, err := c.store.FindBranding(ctx, org)
	if err != nil {
		return err
	}
	d := settingsPage{Branding: b, Locales: locale.All(), Default: strconv.FormatFloat(screening.DefaultThreshold, 'f', -1, 64),
		BrandForm: brandForm{DisplayName: b.DisplayName, SupportEmail: b.SupportEmail, PrivacyURL: b.PrivacyURL, BrandColor: b.BrandColor,
			DefaultLocale: b.DefaultLocale}}
	o, err := c.store.FindOrganization(ctx, org)
	if err != nil {
		return err
	}
	d.ContactEmail = o.ContactEmail
	if o.AMLThreshold != nil {
		d.Threshold = strconv.FormatFloat(*o.AMLThreshold, 'f', -1, 64)
	}
	if d.Kinds, err = c.store.AMLKinds(ctx, org); err != nil {
		return err
	}
	d.KindsCustom = d.Kinds != nil
	versions, err := c.store.FindListVersions(ctx, true)
	if err != nil {
		return err
	}
	for _, k := range kyc.AMLKinds {
		if slices.ContainsFunc(versions, func(v *store.ListVersion) bool { return v.Kind == k }) {
			d.Listed = append(d.Listed, k)
		} else {
			d.Unlisted = append(d.Unlisted, k)
		}
	}
	set, err := c.store.FindOrgSettings(ctx, org)
	if err != nil {
		return err
	}
	d.FourEyes, d.PersonalData, d.RoundRobin = set.FourEyes, set.ReportPersonalData, set.RoundRobin
	if d.RoundRobin {
		if d.InTurn, err = c.reviewersIn(r, org); err != nil {
			return err
		}
	}
	d.SLALive, d.SLASandbox = set.SLAHours[kyc.Live], set.SLAHours[kyc.Sandbox]
	if d.RequireTOTP, err = c.store.RequireTOTP(ctx, org); err != nil {
		return err
	}
	pol, err := c.policyOf(r)
	if err != nil {
		return err
	}
	d.Policy = policySummary{Custom: set.DecisionPolicy != nil, Version: pol.Version}
	d.BuiltInCodes = kyc.BuiltInReasonCodes
	for _, e := range []kyc.Environment{kyc.Live, kyc.Sandbox} {
		codes, err := c.store.FindReasonCodes(ctx, org, e)
		if err != nil {
			return err
		}
		d.ReasonCodes = append(d.ReasonCodes, reasonCodesSettings{Env: e, Codes: codes})
	}
	ret, err := c.store.RetentionOf(ctx, org)
	if err != nil {
		return err
	}
	d.Retention = retentionFields(ret)
	if formError(r) != nil {
		// Show what was sent, so nothing typed is lost.
		switch r.URL.Path {
		case "/console/settings/branding":
			d.BrandForm = brandForm{DisplayName: r.PostFormValue("displayName"), SupportEmail: r.PostFormValue("supportEmail"),
				PrivacyURL: r.PostFormValue("privacyUrl"), BrandColor: r.PostFormValue("brandColor"), DefaultLocale: r.PostFormValue("defaultLocale")}
		case "/console/settings/reason-codes":
			d.CodeForm.Env, d.CodeForm.Code, d.CodeForm.Label = r.PostFormValue("environment"), r.PostFormValue("code"), r.PostFormValue("label")
		case "/console/settings/contact":
			d.ContactEmail = r.PostFormValue("contactEmail")
		case "/console/settings/retention":
			for i := range d.Retention {
				d.Retention[i].Value = r.PostFormValue(d.Retention[i].Name)
			}
		case "/console/settings/screening":
			d.Threshold = r.PostFormValue("threshold")
			d.KindsCustom = r.PostFormValue("kindsMode") == "custom"
			d.Kinds = append([]string{kyc.KindSanctions}, r.PostForm["kinds"]...)
		}
	}
	d.Swatch = swatch(d.BrandForm.BrandColor)
	return c.render(w, r, http.StatusOK, "settings.html", &page{Title: "Settings", Section: "settings", Data: d})
}

// swatch is a small picture of the brand colour with the text colour the
// portal puts on it, as a data: URL (the CSP allows data: images, not
// inline styles). "" when the colour is not valid.
func swatch(color string) template.URL {
	pal, ok := branding.NewPalette(strings.ToLower(strings.TrimSpace(color)))
	if !ok {
		return ""
	}
	svg := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="96" height="32"><rect width="96" height="32" rx="6" fill="%s"/>`+
		`<text x="48" y="21" font-family="sans-serif" font-size="14" text-anchor="middle" fill="%s">Continue</text></svg>`, pal.Brand, pal.OnBrand)
	// Built from two validated #rrggbb colours and fixed text only.
	return template.URL("data:image/svg+xml," + url.PathEscape(svg))
}

// handleBrandingSettings handles "POST /console/settings/branding"
// (multipart, for the logo): what applicants see of the organization in
// the portal and the e-mail. Each field as sent replaces the setting
// ("" clears it); the logo is replaced only when a file is sent.
func (c *console) handleBrandingSettings(w http.ResponseWriter, r *http.Request) error {
	// The logo's limit, plus room for the other fields and the multipart
	// framing; anything bigger is refused before it is read.
	r.Body = http.MaxBytesReader(w, r.Body, kyc.MaxLogoBytes+64<<10)
	if err := r.ParseMultipartForm(kyc.MaxLogoBytes + 64<<10); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return kyc.Invalid(kyc.FieldError{Field: "logo", Message: fmt.Sprintf("must be at most %d KB", kyc.MaxLogoBytes>>10)})
		}
		return kyc.Errorf(kyc.EValidation, "The form could not be read.")
	}
	field := func(name string) *string { v := r.PostFormValue(name); return &v }
	u := kyc.BrandingUpdate{DisplayName: field("displayName"), SupportEmail: field("supportEmail"), PrivacyURL: field("privacyUrl"),
		BrandColor: field("brandColor"), DefaultLocale: field("defaultLocale")}
	u.Normalize()
	errs := u.Validate()
	var logo *kyc.Logo
	var removed []string
	if f, _, err := r.FormFile("logo"); err == nil {
		data, rerr := io.ReadAll(io.LimitReader(f, kyc.MaxLogoBytes+1))
		f.Close()
		switch {
		case rerr != nil:
			return fmt.Errorf("read logo: %w", rerr)
		case len(data) == 0:
			// An empty file input: no new logo.
		default:
			var lerr error
			if logo, removed, lerr = branding.ProcessLogo(data); lerr != nil {
				var le *branding.LogoError
				if !errors.As(lerr, &le) {
					return lerr
				}
				errs = append(errs, kyc.FieldError{Field: "logo", Message: le.Error()})
			}
		}
	} else if !errors.Is(err, http.ErrMissingFile) {
		return kyc.Errorf(kyc.EValidation, "The form could not be read.")
	}
	if len(errs) > 0 {
		return kyc.Invalid(errs...)
	}
	sess := sessionFrom(r)
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := tx.UpdateBranding(sess.User.OrganizationID, u, logo, r.PostFormValue("removeLogo") == "true", kyc.ActorUser, sess.User.ID)
		return err
	}); err != nil {
		return err
	}
	notice := "branding-saved"
	if len(removed) > 0 {
		notice = "branding-saved-svg"
	}
	return redirect(w, r, "/console/settings#branding", notice)
}

// handleContactSettings handles "POST /console/settings/contact": the
// address that receives the organization's operational notices (an
// endpoint disabled after failing); empty removes it.
func (c *console) handleContactSettings(w http.ResponseWriter, r *http.Request) error {
	org := sessionFrom(r).User.OrganizationID
	email := strings.TrimSpace(r.PostFormValue("contactEmail"))
	if err := kyc.CheckContactEmail(email); err != nil {
		return err
	}
	o, err := c.store.FindOrganization(r.Context(), org)
	if err != nil {
		return err
	}
	if o.ContactEmail != email {
		if err := c.store.InTx(r.Context(), func(tx *store.Tx) error { return tx.SetContactEmail(org, email) }); err != nil {
			return err
		}
	}
	return redirect(w, r, "/console/settings#contact", "contact-saved")
}

// handleScreeningSettings handles "POST /console/settings/screening": the
// AML match threshold and the list kinds the organization screens.
func (c *console) handleScreeningSettings(w http.ResponseWriter, r *http.Request) error {
	org := sessionFrom(r).User.OrganizationID
	var errs []kyc.FieldError
	var threshold *float64
	if v := strings.TrimSpace(r.PostFormValue("threshold")); v != "" {
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || !(t > 0 && t <= 1) { // also refuses NaN
			errs = append(errs, kyc.FieldError{Field: "threshold", Message: "must be a number greater than 0 and at most 1, or empty for the default"})
		}
		threshold = &t
	}
	var kinds []string
	if r.PostFormValue("kindsMode") == "custom" {
		var err error
		if kinds, err = kyc.ParseAMLKinds(strings.Join(append([]string{kyc.KindSanctions}, r.PostForm["kinds"]...), ",")); err != nil {
			errs = append(errs, kyc.FieldError{Field: "kinds", Message: err.Error()})
		}
	}
	if len(errs) > 0 {
		return kyc.Invalid(errs...)
	}
	ctx := r.Context()
	o, err := c.store.FindOrganization(ctx, org)
	if err != nil {
		return err
	}
	oldKinds, err := c.store.AMLKinds(ctx, org)
	if err != nil {
		return err
	}
	// Only what changed is written (and audited).
	if err := c.store.InTx(ctx, func(tx *store.Tx) error {
		if !sameFloat(o.AMLThreshold, threshold) {
			if err := tx.SetAMLThreshold(org, threshold); err != nil {
				return err
			}
		}
		if (oldKinds == nil) != (kinds == nil) || !slices.Equal(oldKinds, kinds) {
			return tx.SetAMLKinds(org, kinds)
		}
		return nil
	}); err != nil {
		return err
	}
	return redirect(w, r, "/console/settings#screening", "screening-saved")
}

func sameFloat(a, b *float64) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// handleReviewSettings handles "POST /console/settings/review": four-eyes
// review of live manual decisions.
func (c *console) handleReviewSettings(w http.ResponseWriter, r *http.Request) error {
	org := sessionFrom(r).User.OrganizationID
	var on bool
	switch r.PostFormValue("fourEyes") {
	case "on":
		on = true
	case "off":
	default:
		return kyc.Invalid(kyc.FieldError{Field: "fourEyes", Message: "must be on or off"})
	}
	set, err := c.store.FindOrgSettings(r.Context(), org)
	if err != nil {
		return err
	}
	if set.FourEyes != on {
		if err := c.store.InTx(r.Context(), func(tx *store.Tx) error { return tx.SetFourEyes(org, on) }); err != nil {
			return err
		}
	}
	return redirect(w, r, "/console/settings#review", map[bool]string{true: "four-eyes-on", false: "four-eyes-off"}[on])
}

// handleReportSettings handles "POST /console/settings/reports": how
// compliance reports print personal data (full or masked).
func (c *console) handleReportSettings(w http.ResponseWriter, r *http.Request) error {
	org := sessionFrom(r).User.OrganizationID
	p, ok := kyc.ParsePersonalData(r.PostFormValue("personalData"))
	if !ok {
		return kyc.Invalid(kyc.FieldError{Field: "personalData", Message: "must be full or masked"})
	}
	set, err := c.store.FindOrgSettings(r.Context(), org)
	if err != nil {
		return err
	}
	if set.ReportPersonalData != p {
		if err := c.store.InTx(r.Context(), func(tx *store.Tx) error { return tx.SetReportPersonalData(org, p) }); err != nil {
			return err
		}
	}
	return redirect(w, r, "/console/settings#reports", "reports-"+string(p))
}

// handleRequireTOTP handles "POST /console/settings/require-totp": a
// second factor for every user of the organization, or for those who
// choose one.
func (c *console) handleRequireTOTP(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	on := r.PostFormValue("require") == "true"
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		return c.users.SetRequireTOTP(tx, sess.User.OrganizationID, on, actor(r))
	}); err != nil {
		return err
	}
	return redirect(w, r, "/console/settings#signin", map[bool]string{true: "require-on", false: "require-off"}[on])
}
