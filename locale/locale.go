// Package locale holds the languages of everything an applicant reads:
// the portal's pages and messages and the e-mail with the portal link. Its
// message catalogs (messages/<tag>.json, one per language) are embedded in
// the binary; Match chooses the language for an applicant, and a Catalog
// gives the messages, plural forms and dates of one language.
//
// A catalog is a JSON object whose keys are message keys and whose values
// are either a string or, for a message that depends on a number, an
// object of CLDR plural forms ("one", "few", "many", "other", …). Messages
// name their arguments in braces: "Hello {name}". Every catalog has
// exactly the keys of the English one, with the same placeholders and the
// plural forms its language needs; a test keeps it so.
package locale

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
)

//go:embed messages/*.json
var files embed.FS

// Default is the language of last resort, and the reference catalog every
// other one must match.
const Default = "en"

// Catalog is the messages of one language.
type Catalog struct {
	tag  language.Tag
	name string // the canonical tag, as in the file name: "de", "zh-Hans"
	msgs map[string]Message
}

// Message is one catalog entry: Text, or for a number-dependent message
// its plural forms by CLDR category name.
type Message struct {
	Text   string
	Plural map[string]string
}

// UnmarshalJSON reads a string or an object of plural forms.
func (m *Message) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		return json.Unmarshal(b, &m.Plural)
	}
	return json.Unmarshal(b, &m.Text)
}

// MarshalJSON writes a message back as it was read, for the page's
// script.
func (m Message) MarshalJSON() ([]byte, error) {
	if m.Plural != nil {
		return json.Marshal(m.Plural)
	}
	return json.Marshal(m.Text)
}

// catalogs are every embedded language, the default first.
type catalogs struct {
	list    []*Catalog
	byName  map[string]*Catalog
	matcher language.Matcher
}

// all is parsed once, on first use; the files are part of the binary, so a
// broken one is a build mistake and panics (the catalog test catches it
// before any binary is built).
var all = sync.OnceValue(func() *catalogs {
	cs, err := load(files)
	if err != nil {
		panic("locale: " + err.Error())
	}
	return cs
})

// load parses every messages/*.json file of fsys.
func load(fsys fs.FS) (*catalogs, error) {
	names, err := fs.Glob(fsys, "messages/*.json")
	if err != nil {
		return nil, err
	}
	cs := &catalogs{byName: map[string]*Catalog{}}
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(path.Base(n), ".json")
		tag, err := language.Parse(name)
		if err != nil || tag.String() != name {
			return nil, fmt.Errorf("%s: the file name must be a canonical BCP 47 tag (%v)", n, err)
		}
		c := &Catalog{tag: tag, name: name}
		if err := json.Unmarshal(b, &c.msgs); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		cs.byName[name] = c
		cs.list = append(cs.list, c)
	}
	if cs.byName[Default] == nil {
		return nil, fmt.Errorf("no %s catalog", Default)
	}
	// The default first: the matcher falls back to its first tag.
	slices.SortStableFunc(cs.list, func(a, b *Catalog) int {
		switch {
		case a.name == Default:
			return -1
		case b.name == Default:
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	tags := make([]language.Tag, len(cs.list))
	for i, c := range cs.list {
		tags[i] = c.tag
	}
	cs.matcher = language.NewMatcher(tags)
	return cs, nil
}

// All returns every catalog, English first, then by tag.
func All() []*Catalog { return slices.Clone(all().list) }

// Tags returns the tag of every catalog, in the order of All.
func Tags() []string {
	var out []string
	for _, c := range all().list {
		out = append(out, c.name)
	}
	return out
}

// Get returns the catalog of a canonical tag from Tags, or the default one.
func Get(tag string) *Catalog {
	if c := all().byName[tag]; c != nil {
		return c
	}
	return all().byName[Default]
}

// Parse reads a BCP 47 language tag (as the API's locale field takes it)
// and returns its canonical form and the catalog it is shown in. It fails
// for a malformed tag and for a language none of the catalogs serves, or
// could only serve by guessing (Japanese would get English, Russian would
// get Ukrainian). A region or script that only adjusts the language is
// fine: de-CH is shown in de, pt-BR in pt, zh-CN in zh-Hans. Traditional
// Chinese (zh-TW, zh-Hant) is shown in Simplified until there is a catalog
// for it: readable, which the matcher rates a low but usable match.
func Parse(s string) (canonical string, c *Catalog, err error) {
	// x/text also reads POSIX-style de_DE; BCP 47 separates with hyphens.
	if s == "" || len(s) > 64 || strings.ContainsRune(s, '_') {
		return "", nil, fmt.Errorf("not a BCP 47 language tag")
	}
	tag, err := language.Parse(s)
	if err != nil {
		return "", nil, fmt.Errorf("not a BCP 47 language tag")
	}
	c, ok := match(tag)
	if !ok {
		return "", nil, fmt.Errorf("no catalog for %s", tag)
	}
	return tag.String(), c, nil
}

// match returns the catalog for tag, ok false when the matcher would only
// fall back to its default.
func match(tags ...language.Tag) (*Catalog, bool) {
	cs := all()
	_, i, conf := cs.matcher.Match(tags...)
	if conf == language.No {
		return cs.list[0], false
	}
	return cs.list[i], true
}

// Choice is the inputs of Match, strongest first. Empty ones are skipped.
type Choice struct {
	Chosen         string // the applicant's pick from the language switcher
	Requested      string // the KYC request's locale
	AcceptLanguage string // the browser's Accept-Language header
	OrgDefault     string // the organization's default locale
}

// Match picks the catalog for an applicant: their own pick on the page,
// else the request's locale, else the browser's languages, else the
// organization's default, else English. An input that names no language
// of ours (malformed, or Japanese) is skipped, never an error: the page
// must always show.
func Match(ch Choice) *Catalog {
	for _, s := range []string{ch.Chosen, ch.Requested} {
		if s == "" {
			continue
		}
		if _, c, err := Parse(s); err == nil {
			return c
		}
	}
	if ch.AcceptLanguage != "" && len(ch.AcceptLanguage) <= 1024 {
		if tags, _, err := language.ParseAcceptLanguage(ch.AcceptLanguage); err == nil && len(tags) > 0 {
			if c, ok := match(tags...); ok {
				return c
			}
		}
	}
	if ch.OrgDefault != "" {
		if _, c, err := Parse(ch.OrgDefault); err == nil {
			return c
		}
	}
	return Get(Default)
}

// Tag is the catalog's canonical BCP 47 tag, for lang attributes.
func (c *Catalog) Tag() string { return c.name }

// Name is the language's name in itself ("Deutsch"), for the switcher.
func (c *Catalog) Name() string { return c.T("lang.name") }

// Dir is "rtl" for a right-to-left language, else "ltr".
func (c *Catalog) Dir() string {
	if c.T("lang.dir") == "rtl" {
		return "rtl"
	}
	return "ltr"
}

// Has reports whether the catalog has key.
func (c *Catalog) Has(key string) bool {
	_, ok := c.msgs[key]
	return ok
}

// Keys returns the catalog's keys, sorted.
func (c *Catalog) Keys() []string {
	keys := make([]string, 0, len(c.msgs))
	for k := range c.msgs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Message returns the raw entry of key.
func (c *Catalog) Message(key string) (Message, bool) {
	m, ok := c.msgs[key]
	return m, ok
}

// T returns the message key with its placeholders filled from args, given
// as name, value pairs: T("welcome.hello", "name", "Ada"). A key missing
// here falls back to English, and a key missing there shows as itself, so
// that a mistake is visible on the page rather than an empty space (the
// catalog tests make both impossible for the keys the code uses).
func (c *Catalog) T(key string, args ...string) string {
	m, ok := c.msgs[key]
	if !ok {
		if c.name != Default {
			return Get(Default).T(key, args...)
		}
		return key
	}
	text := m.Text
	if m.Plural != nil {
		text = m.Plural["other"]
	}
	return fill(text, args)
}

// N returns the plural message key in the form for n, with {n} and args
// filled in.
func (c *Catalog) N(key string, n int, args ...string) string {
	m, ok := c.msgs[key]
	if !ok || m.Plural == nil {
		if c.name != Default {
			return Get(Default).N(key, n, args...)
		}
		return key
	}
	text, ok := m.Plural[PluralForm(c.tag, n)]
	if !ok {
		text = m.Plural["other"]
	}
	return fill(text, append([]string{"n", strconv.Itoa(n)}, args...))
}

// PluralForm is the CLDR cardinal plural category of the whole number n
// in language tag: "zero", "one", "two", "few", "many" or "other".
func PluralForm(tag language.Tag, n int) string {
	if n < 0 {
		n = -n
	}
	return formNames[plural.Cardinal.MatchPlural(tag, n, 0, 0, 0, 0)]
}

var formNames = map[plural.Form]string{plural.Other: "other", plural.Zero: "zero", plural.One: "one", plural.Two: "two",
	plural.Few: "few", plural.Many: "many"}

// fill replaces each {name} of text by its value in args (name, value
// pairs). Values are inserted as they are: escaping is the template's job.
func fill(text string, args []string) string {
	if len(args) < 2 || !strings.Contains(text, "{") {
		return text
	}
	pairs := make([]string, 0, len(args))
	for i := 0; i+1 < len(args); i += 2 {
		pairs = append(pairs, "{"+args[i]+"}", args[i+1])
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// Placeholders returns the names in braces in text, sorted, once each.
func Placeholders(text string) []string {
	var out []string
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			break
		}
		out = append(out, text[i+1:i+j])
		text = text[i+j+1:]
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Date writes the calendar day of t (in UTC) as the language writes a
// date in full: 30 April 2031, 30. April 2031, 2031年4月30日.
func (c *Catalog) Date(t time.Time) string {
	t = t.UTC()
	return c.T("date.long", "day", strconv.Itoa(t.Day()), "month", c.T("date.month."+strconv.Itoa(int(t.Month()))),
		"year", strconv.Itoa(t.Year()))
}

// DateTime writes t (in UTC) as a full date and a 24-hour time, marked UTC.
func (c *Catalog) DateTime(t time.Time) string {
	t = t.UTC()
	return c.T("date.datetime", "date", c.Date(t), "time", t.Format("15:04"))
}

// ISODate writes a YYYY-MM-DD date in full, or returns it unchanged when
// it is not one.
func (c *Catalog) ISODate(s string) string {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return s
	}
	return c.Date(t)
}

// List joins items as the language writes a short list: "a, b, c".
func (c *Catalog) List(items []string) string { return strings.Join(items, c.T("list.sep")) }
