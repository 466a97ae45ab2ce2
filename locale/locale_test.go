package locale_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/language"

	"kycd/kyc"
	"kycd/locale"
)

// required are the languages the portal must offer (issue 21).
var required = []string{"en", "de", "fr", "es", "it", "pt", "nl", "pl", "tr", "ru", "uk", "ar", "zh-Hans"}

func TestRequiredLanguages(t *testing.T) {
	tags := locale.Tags()
	if tags[0] != "en" {
		t.Errorf("Tags()[0]=%s, want en", tags[0])
	}
	for _, r := range required {
		if !slices.Contains(tags, r) {
			t.Errorf("no catalog for %s", r)
		}
	}
}

// neededForms are the plural categories a catalog of tag must give: every
// category CLDR assigns to a whole number up to 1000, plus "other", the
// fallback (and the form of fractions).
func neededForms(tag string) []string {
	forms := []string{"other"}
	t := language.MustParse(tag)
	for n := 0; n <= 1000; n++ {
		forms = append(forms, locale.PluralForm(t, n))
	}
	slices.Sort(forms)
	return slices.Compact(forms)
}

// TestCatalogsComplete fails when a catalog lacks a key of the English
// one or has one it does not, when a message's placeholders differ from
// the English ones, when a plural message lacks a form its language needs
// (or has one it never uses), or when a message is empty.
func TestCatalogsComplete(t *testing.T) {
	en := locale.Get("en")
	for _, c := range locale.All() {
		t.Run(c.Tag(), func(t *testing.T) {
			for _, k := range en.Keys() {
				if !c.Has(k) {
					t.Errorf("missing key %s", k)
				}
			}
			for _, k := range c.Keys() {
				if !en.Has(k) {
					t.Errorf("unknown key %s (not in en.json)", k)
					continue
				}
				want, _ := en.Message(k)
				got, _ := c.Message(k)
				checkMessage(t, c.Tag(), k, want, got)
			}
		})
	}
}

func checkMessage(t *testing.T, tag, key string, want, got locale.Message) {
	t.Helper()
	if (want.Plural == nil) != (got.Plural == nil) {
		t.Errorf("%s: plural in one catalog, plain in the other", key)
		return
	}
	if want.Plural == nil {
		if strings.TrimSpace(got.Text) == "" {
			t.Errorf("%s: empty", key)
		}
		if w, g := locale.Placeholders(want.Text), locale.Placeholders(got.Text); !slices.Equal(w, g) {
			t.Errorf("%s: placeholders %v, want %v (as in en)", key, g, w)
		}
		return
	}
	var forms []string
	for f := range got.Plural {
		forms = append(forms, f)
	}
	slices.Sort(forms)
	if need := neededForms(tag); !slices.Equal(forms, need) {
		t.Errorf("%s: plural forms %v, want %v", key, forms, need)
	}
	// {n} may be spelled out in a form that holds one number only
	// (Arabic "ثانيتين" for two); every other placeholder must be there.
	w := locale.Placeholders(want.Plural["other"])
	for f, text := range got.Plural {
		if strings.TrimSpace(text) == "" {
			t.Errorf("%s.%s: empty", key, f)
		}
		g := locale.Placeholders(text)
		for _, p := range w {
			if p != "n" && !slices.Contains(g, p) {
				t.Errorf("%s.%s: lacks {%s}", key, f, p)
			}
		}
		for _, p := range g {
			if !slices.Contains(w, p) {
				t.Errorf("%s.%s: unknown placeholder {%s}", key, f, p)
			}
		}
		if f == "other" && !slices.Contains(g, "n") {
			t.Errorf("%s.other: lacks {n}", key)
		}
	}
}

// TestCatalogsTranslated catches a catalog that is English copied over:
// only a few messages (patterns, names of formats) may read the same.
func TestCatalogsTranslated(t *testing.T) {
	en := locale.Get("en")
	for _, c := range locale.All() {
		if c.Tag() == "en" {
			continue
		}
		same := 0
		for _, k := range en.Keys() {
			if en.T(k) == c.T(k) {
				same++
			}
		}
		if same > len(en.Keys())/20 {
			t.Errorf("%s: %d of %d messages read as in English", c.Tag(), same, len(en.Keys()))
		}
	}
}

func TestDirection(t *testing.T) {
	for _, c := range locale.All() {
		want := "ltr"
		if c.Tag() == "ar" {
			want = "rtl"
		}
		if c.Dir() != want || (c.T("lang.dir") != "ltr" && c.T("lang.dir") != "rtl") {
			t.Errorf("%s: dir %s (lang.dir %q), want %s", c.Tag(), c.Dir(), c.T("lang.dir"), want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in, canonical, catalog string
		ok                     bool
	}{
		{"de", "de", "de", true},
		{"de-CH", "de-CH", "de", true},
		{"DE-ch", "de-CH", "de", true},
		{"pt-BR", "pt-BR", "pt", true},
		{"zh", "zh", "zh-Hans", true},
		{"zh-CN", "zh-CN", "zh-Hans", true},
		{"zh-Hans", "zh-Hans", "zh-Hans", true},
		{"zh-TW", "zh-TW", "zh-Hans", true},
		{"ar-EG", "ar-EG", "ar", true},
		{"uk", "uk", "uk", true},
		{"ru", "ru", "ru", true},
		{"en-US", "en-US", "en", true},
		{"ja", "", "", false},      // no catalog: not silently English
		{"sr", "", "", false},      // no catalog: not silently Ukrainian
		{"english", "", "", false}, // not a tag
		{"de_DE", "", "", false},   // POSIX, not BCP 47
		{"", "", "", false},
		{"x-klingon", "", "", false},
	} {
		canonical, c, err := locale.Parse(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("Parse(%q) err=%v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok && (canonical != tt.canonical || c.Tag() != tt.catalog) {
			t.Errorf("Parse(%q)=%s,%s, want %s,%s", tt.in, canonical, c.Tag(), tt.canonical, tt.catalog)
		}
	}
}

// TestMatch walks the order: the applicant's pick, the request's locale,
// the browser's languages, the organization's default, English.
func TestMatch(t *testing.T) {
	for _, tt := range []struct {
		name string
		ch   locale.Choice
		want string
	}{
		{"nothing", locale.Choice{}, "en"},
		{"org default", locale.Choice{OrgDefault: "nl"}, "nl"},
		{"browser over org", locale.Choice{AcceptLanguage: "fr-CH, fr;q=0.9, en;q=0.8", OrgDefault: "nl"}, "fr"},
		{"browser's second choice", locale.Choice{AcceptLanguage: "ja, pl;q=0.7", OrgDefault: "nl"}, "pl"},
		{"browser with nothing of ours", locale.Choice{AcceptLanguage: "ja, ko;q=0.5", OrgDefault: "nl"}, "nl"},
		{"malformed browser header", locale.Choice{AcceptLanguage: ";;;q=x", OrgDefault: "tr"}, "tr"},
		{"request over browser", locale.Choice{Requested: "uk", AcceptLanguage: "de", OrgDefault: "nl"}, "uk"},
		{"pick over request", locale.Choice{Chosen: "ar", Requested: "uk", AcceptLanguage: "de"}, "ar"},
		{"bad pick skipped", locale.Choice{Chosen: "xx-<script>", Requested: "it"}, "it"},
		{"chinese browser", locale.Choice{AcceptLanguage: "zh-CN,zh;q=0.9"}, "zh-Hans"},
		{"russian browser", locale.Choice{AcceptLanguage: "ru-RU,ru;q=0.9"}, "ru"},
	} {
		if got := locale.Match(tt.ch).Tag(); got != tt.want {
			t.Errorf("%s: Match=%s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestDates(t *testing.T) {
	d := time.Date(2031, 4, 30, 15, 4, 0, 0, time.UTC)
	for tag, want := range map[string]string{
		"en":      "30 April 2031",
		"de":      "30. April 2031",
		"fr":      "30 avril 2031",
		"es":      "30 de abril de 2031",
		"pt":      "30 de abril de 2031",
		"it":      "30 aprile 2031",
		"nl":      "30 april 2031",
		"pl":      "30 kwietnia 2031",
		"tr":      "30 Nisan 2031",
		"ru":      "30 апреля 2031 г.",
		"uk":      "30 квітня 2031 р.",
		"ar":      "30 أبريل 2031",
		"zh-Hans": "2031年4月30日",
	} {
		if got := locale.Get(tag).Date(d); got != want {
			t.Errorf("%s: Date=%q, want %q", tag, got, want)
		}
		if got := locale.Get(tag).DateTime(d); !strings.Contains(got, want) || !strings.Contains(got, "15:04") {
			t.Errorf("%s: DateTime=%q", tag, got)
		}
	}
	if got := locale.Get("de").ISODate("2031-04-30"); got != "30. April 2031" {
		t.Errorf("ISODate=%q", got)
	}
	if got := locale.Get("de").ISODate("30.04.2031"); got != "30.04.2031" {
		t.Errorf("ISODate of a non-ISO date=%q, want it unchanged", got)
	}
}

func TestPlural(t *testing.T) {
	for _, tt := range []struct {
		tag  string
		n    int
		want string
	}{
		{"en", 1, "in 1 second."},
		{"en", 5, "in 5 seconds."},
		{"ru", 1, "1 секунду"},
		{"ru", 3, "3 секунды"},
		{"ru", 5, "5 секунд"},
		{"pl", 2, "2 sekundy"},
		{"pl", 5, "5 sekund"},
		{"uk", 4, "4 секунди"},
	} {
		if got := locale.Get(tt.tag).N("done.redirect", tt.n); !strings.Contains(got, tt.want) {
			t.Errorf("%s N(%d)=%q, want it to contain %q", tt.tag, tt.n, got, tt.want)
		}
	}
}

func TestFill(t *testing.T) {
	c := locale.Get("en")
	if got := c.T("welcome.hello", "name", "Ada {org}", "org", "X"); got != "Hello Ada {org}, let’s verify your identity" {
		t.Errorf("T=%q: a value must not be filled in again", got)
	}
	if got := c.T("no.such.key"); got != "no.such.key" {
		t.Errorf("unknown key gives %q", got)
	}
	if got := locale.Get("de").T("no.such.key"); got != "no.such.key" {
		t.Errorf("unknown key in de gives %q", got)
	}
}

// TestPortalLocales keeps kyc's list of the languages an organization may
// choose as its default equal to the catalogs.
func TestPortalLocales(t *testing.T) {
	got, want := slices.Sorted(slices.Values(kyc.PortalLocales)), slices.Sorted(slices.Values(locale.Tags()))
	if !slices.Equal(got, want) {
		t.Errorf("kyc.PortalLocales=%v, catalogs %v", got, want)
	}
}
