package kyc

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// Branding is what an applicant is shown of the organization that asks
// them to verify: on the portal's pages, on its consent step and in the
// e-mail with the link. An applicant who is not told who is asking has
// every reason to take the link for phishing.
type Branding struct {
	Name          string // the organization's name: always there
	DisplayName   string // "" shows Name
	SupportEmail  string // "" shows no contact
	PrivacyURL    string // "" shows no privacy link
	BrandColor    string // "#rrggbb"; "" keeps the portal's own colours
	DefaultLocale string // a PortalLocales tag; "" is English
	Logo          *Logo  // nil: none
}

// Shown is the name an applicant reads: the display name, else the name.
func (b *Branding) Shown() string {
	if b.DisplayName != "" {
		return b.DisplayName
	}
	return b.Name
}

// Logo is an organization's logo as stored: already re-encoded (PNG) or
// sanitised (SVG), so it is safe to serve as it is.
type Logo struct {
	SHA256      string // hex of Data; also its URL
	ContentType string // image/png or image/svg+xml
	Width       int    // pixels (PNG) or the viewBox's units (SVG)
	Height      int
	Data        []byte
}

// Limits of the branding fields.
const (
	MaxDisplayNameLen = 100
	MaxPrivacyURLLen  = 2048
	MaxLogoBytes      = 256 << 10 // what the operator may upload, before sanitising
)

// PortalLocales are the languages the portal and its e-mail are written
// in: the message catalogs of package locale (a test there keeps the two
// lists equal). An organization's default locale is one of them.
var PortalLocales = []string{"en", "ar", "de", "es", "fr", "it", "nl", "pl", "pt", "ru", "tr", "uk", "zh-Hans"}

// BrandingUpdate changes an organization's branding: a nil field stays as
// it is, "" clears it.
type BrandingUpdate struct {
	DisplayName   *string
	SupportEmail  *string
	PrivacyURL    *string
	BrandColor    *string
	DefaultLocale *string
}

// Empty reports whether u changes nothing.
func (u *BrandingUpdate) Empty() bool {
	return u.DisplayName == nil && u.SupportEmail == nil && u.PrivacyURL == nil && u.BrandColor == nil && u.DefaultLocale == nil
}

// Normalize trims the fields and writes a colour as lower-case #rrggbb
// (#ABC becomes #aabbcc); call it before Validate.
func (u *BrandingUpdate) Normalize() {
	for _, p := range []*string{u.DisplayName, u.SupportEmail, u.PrivacyURL, u.BrandColor, u.DefaultLocale} {
		if p != nil {
			*p = strings.TrimSpace(*p)
		}
	}
	if c := u.BrandColor; c != nil && len(*c) == 4 && (*c)[0] == '#' {
		*c = "#" + strings.Repeat((*c)[1:2], 2) + strings.Repeat((*c)[2:3], 2) + strings.Repeat((*c)[3:4], 2)
	}
	if c := u.BrandColor; c != nil {
		*c = strings.ToLower(*c)
	}
}

// Validate checks every field that is set, naming each invalid one. The
// field names are those of the API and the console: displayName,
// supportEmail, privacyUrl, brandColor, defaultLocale.
func (u *BrandingUpdate) Validate() []FieldError {
	var errs []FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if v := u.DisplayName; v != nil && *v != "" {
		switch {
		case utf8.RuneCountInString(*v) > MaxDisplayNameLen:
			add("displayName", "must be at most %d characters", MaxDisplayNameLen)
		case !printable(*v) || strings.ContainsAny(*v, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"):
			// Bidirectional overrides could make the name read as another.
			add("displayName", "must not contain control or text-direction characters")
		}
	}
	if v := u.SupportEmail; v != nil && *v != "" && (len(*v) > MaxEmailLen || !validEmail(*v)) {
		add("supportEmail", "must be an e-mail address such as privacy@example.com")
	}
	if v := u.PrivacyURL; v != nil && *v != "" {
		p, err := url.Parse(*v)
		switch {
		case len(*v) > MaxPrivacyURLLen:
			add("privacyUrl", "must be at most %d characters", MaxPrivacyURLLen)
		case err != nil || p.Scheme != "https" || p.Host == "" || p.User != nil:
			add("privacyUrl", "must be an https URL such as https://example.com/privacy")
		}
	}
	if v := u.BrandColor; v != nil && *v != "" && !ValidColor(*v) {
		add("brandColor", "must be a colour as #rrggbb, e.g. #0b3d91")
	}
	if v := u.DefaultLocale; v != nil && *v != "" && !slices.Contains(PortalLocales, *v) {
		add("defaultLocale", "must be one of %s", strings.Join(PortalLocales, ", "))
	}
	return errs
}

// ValidColor reports whether s is a lower-case #rrggbb colour.
func ValidColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, c := range s[1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ActorOperator is someone at the server's console: a kycd command.
const ActorOperator ActorType = "operator"
