package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"

	"kycd/branding"
	"kycd/kyc"
	"kycd/store"
)

// brandingFlags are the branding options of kycd orgs update: what the
// applicant is shown of the organization in the portal and the e-mail.
// A flag given as "" clears its setting.
type brandingFlags struct {
	DisplayName   *string `name:"display-name" placeholder:"NAME" help:"Name the applicant sees in the portal and the e-mail (default: the organization's name; \"\" resets)."`
	SupportEmail  *string `name:"support-email" placeholder:"ADDR" help:"Address the portal and the e-mail give for questions (Reply-To of the e-mail; \"\" removes)."`
	PrivacyURL    *string `name:"privacy-url" placeholder:"URL" help:"https URL of the organization's privacy policy, linked on the consent step and in the e-mail (\"\" removes)."`
	Logo          string  `name:"logo" placeholder:"FILE|none" help:"PNG or SVG logo (at most 256 KB; PNG is re-encoded, SVG sanitised); 'none' removes it."`
	BrandColor    *string `name:"brand-color" placeholder:"#RRGGBB" help:"Colour of the portal's header and buttons (text colours follow for contrast; \"\" resets)."`
	DefaultLocale *string `name:"default-locale" placeholder:"TAG" help:"Portal and e-mail language when neither the request nor the browser names one: en, ar, de, es, fr, it, nl, pl, pt, ru, tr, uk or zh-Hans (\"\" resets to en)."`
}

func (f *brandingFlags) given() bool {
	return f.DisplayName != nil || f.SupportEmail != nil || f.PrivacyURL != nil || f.Logo != "" || f.BrandColor != nil ||
		f.DefaultLocale != nil
}

// brandingChange is a validated branding change, read before the database
// is opened.
type brandingChange struct {
	update     kyc.BrandingUpdate
	logo       *kyc.Logo
	removeLogo bool
	removed    []string // what the SVG sanitiser dropped
	result     *kyc.Branding
	given      bool
}

// read validates the flags (kyc.BrandingUpdate.Validate, the rules the
// console will share) and reads and checks the logo file.
func (f *brandingFlags) read() (*brandingChange, error) {
	c := &brandingChange{given: f.given(), update: kyc.BrandingUpdate{DisplayName: f.DisplayName, SupportEmail: f.SupportEmail,
		PrivacyURL: f.PrivacyURL, BrandColor: f.BrandColor, DefaultLocale: f.DefaultLocale}}
	c.update.Normalize()
	if errs := c.update.Validate(); len(errs) > 0 {
		var msgs []string
		for _, e := range errs {
			flag := map[string]string{"displayName": "--display-name", "supportEmail": "--support-email", "privacyUrl": "--privacy-url",
				"brandColor": "--brand-color", "defaultLocale": "--default-locale"}[e.Field]
			msgs = append(msgs, flag+" "+e.Message)
		}
		return nil, errors.New(strings.Join(msgs, "; "))
	}
	switch f.Logo {
	case "":
	case "none":
		c.removeLogo = true
	default:
		b, err := readLimited(f.Logo, kyc.MaxLogoBytes)
		if err != nil {
			return nil, fmt.Errorf("--logo: %w", err)
		}
		if c.logo, c.removed, err = branding.ProcessLogo(b); err != nil {
			return nil, fmt.Errorf("--logo %s: %w", f.Logo, err)
		}
	}
	return c, nil
}

// readLimited reads a file of at most limit bytes.
func readLimited(path string, limit int) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > limit {
		return nil, fmt.Errorf("the file is larger than %d KB", limit>>10)
	}
	return b, nil
}

// apply writes the change with its audit row, recording who ran the
// command.
func (c *brandingChange) apply(tx *store.Tx, orgID string) (err error) {
	if !c.given {
		return nil
	}
	c.result, err = tx.UpdateBranding(orgID, c.update, c.logo, c.removeLogo, kyc.ActorOperator, operator())
	return err
}

// operator names who ran the command, for the audit log.
func operator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "cli:" + u.Username
	}
	return "cli"
}

// print writes the organization's branding after the change.
func (c *brandingChange) print(e *env, orgID string) {
	if c.result == nil {
		return
	}
	b := c.result
	or := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	fmt.Fprintf(e.stdout, "%s: display name %s\n", orgID, or(b.DisplayName, "(the name: "+b.Name+")"))
	fmt.Fprintf(e.stdout, "%s: support e-mail %s\n", orgID, or(b.SupportEmail, "(none)"))
	fmt.Fprintf(e.stdout, "%s: privacy policy %s\n", orgID, or(b.PrivacyURL, "(none)"))
	fmt.Fprintf(e.stdout, "%s: brand colour %s\n", orgID, or(b.BrandColor, "(the portal's own)"))
	fmt.Fprintf(e.stdout, "%s: default locale %s\n", orgID, or(b.DefaultLocale, "(en)"))
	logo := "(none)"
	if b.Logo != nil {
		logo = fmt.Sprintf("%s %dx%d sha256:%s", b.Logo.ContentType, b.Logo.Width, b.Logo.Height, b.Logo.SHA256)
	}
	fmt.Fprintf(e.stdout, "%s: logo %s\n", orgID, logo)
	for _, r := range c.removed {
		fmt.Fprintf(e.stderr, "kycd: the logo's %s was removed (not allowed in a logo)\n", r)
	}
}
