// Package invite writes the e-mail that sends an applicant their portal
// link: in the applicant's language, as plain text and as HTML, naming
// the organization that asks (its name, logo and colour, who controls the
// data, its privacy policy and its support address), so that it reads as
// what it is and not as phishing.
package invite

import (
	"bytes"
	"embed"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
	"time"
	"unicode"

	"kycd/branding"
	"kycd/kyc"
	"kycd/locale"
)

// LogoCID is the Content-ID the HTML part shows the logo by; the mailer
// attaches the logo inline under it.
const LogoCID = "logo.png"

//go:embed templates
var files embed.FS

var (
	htmlTmpl = htmltemplate.Must(htmltemplate.New("").ParseFS(files, "templates/link.html"))
	textTmpl = texttemplate.Must(texttemplate.New("").ParseFS(files, "templates/link.txt"))
)

// Input is what the e-mail says.
type Input struct {
	Branding  *kyc.Branding // required
	Catalog   *locale.Catalog
	FirstName string
	URL       string // the portal link
	ExpiresAt time.Time
	// Redo, when set, makes the e-mail a resubmission's: it names the one
	// step to redo and carries the reviewer's message.
	Redo *Redo
}

// Redo is a resubmission's step (a kyc.ResubmissionStep) and message.
type Redo struct {
	Step    string
	Message string
}

// Message is the e-mail: its subject, its two bodies, and whether the HTML
// shows the logo inline (only a PNG logo: mail programs do not show SVG).
type Message struct {
	Subject, Text, HTML string
	InlineLogo          bool
}

// data is what the templates read.
type data struct {
	L            *locale.Catalog
	Org          string
	Name         string
	URL          string
	Expires      string
	PrivacyURL   string
	SupportEmail string
	Logo         bool
	Palette      branding.Palette
	Redo         *Redo
	Step         string // the step's name in the e-mail's language
}

// Compose writes the e-mail. It fails only if a template fails, which the
// tests rule out for every language.
func Compose(in Input) (*Message, error) {
	c := in.Catalog
	if c == nil {
		c = locale.Get(locale.Default)
	}
	b := in.Branding
	pal, ok := branding.NewPalette(b.BrandColor)
	if !ok {
		pal, _ = branding.NewPalette("#0b3d91") // the portal's own colour
	}
	d := data{L: c, Org: b.Shown(), Name: in.FirstName, URL: in.URL, Expires: c.DateTime(in.ExpiresAt),
		PrivacyURL: b.PrivacyURL, SupportEmail: b.SupportEmail, Palette: pal,
		Logo: b.Logo != nil && b.Logo.ContentType == "image/png", Redo: in.Redo}
	subjectKey := "email.subject"
	if in.Redo != nil {
		d.Step, subjectKey = c.T("redo.step."+in.Redo.Step), "email.redo_subject"
	}
	var text, html bytes.Buffer
	if err := textTmpl.ExecuteTemplate(&text, "link.txt", d); err != nil {
		return nil, err
	}
	if err := htmlTmpl.ExecuteTemplate(&html, "link.html", d); err != nil {
		return nil, err
	}
	// A subject is one line: a display name with a line break must not
	// add a header.
	subject := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, c.T(subjectKey, "org", d.Org))
	return &Message{Subject: subject, Text: text.String(), HTML: html.String(), InlineLogo: d.Logo}, nil
}
