package kyc_test

import (
	"net/url"
	"testing"

	"kycd/kyc"
)

func TestCheckPathAndQuery(t *testing.T) {
	for _, tt := range []struct {
		name, path string
		query      url.Values
		code       string // "" for no error
		field      string
	}{
		{"plain", "/v1/applicants/app_x", url.Values{"q": {"Zoë"}}, "", ""},
		{"empty", "", nil, "", ""},
		{"NUL in path", "/v1/applicants/\x00", nil, kyc.ENotFound, ""},
		{"lone byte in path", "/v1/webhook-endpoints/\xff", nil, kyc.ENotFound, ""},
		{"surrogate in path", "/v1/x/\xed\xa0\x80", nil, kyc.ENotFound, ""},
		{"NUL in value", "/v1/applicants", url.Values{"externalRef": {"a\x00"}}, kyc.EValidation, "externalRef"},
		{"broken sequence in value", "/v1/applicants", url.Values{"q": {"\xc3\x28"}}, kyc.EValidation, "q"},
		{"second value bad", "/v1/applicants", url.Values{"q": {"ok", "\xff"}}, kyc.EValidation, "q"},
		{"bad name", "/v1/applicants", url.Values{"q\x00\xff": {"ok"}}, kyc.EValidation, "q"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := kyc.CheckPathAndQuery(tt.path, tt.query)
			if got := kyc.ErrorCode(err); (err == nil) != (tt.code == "") || (err != nil && got != tt.code) {
				t.Fatalf("code %q (err %v), want %q", got, err, tt.code)
			}
			if tt.field != "" {
				e := kyc.AsError(err)
				if len(e.Details) != 1 || e.Details[0].Field != tt.field || !kyc.StorableText(e.Details[0].Field) {
					t.Errorf("details %v, want field %q", e.Details, tt.field)
				}
			}
		})
	}
}

// FuzzStorableText: CheckPathAndQuery agrees with StorableText on paths
// and query values, and never puts a bad byte in an error detail (the
// envelope must stay valid JSON text).
func FuzzStorableText(f *testing.F) {
	for _, s := range []string{"", "app_x", "\x00", "\xff", "Zoë", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok := kyc.StorableText(s)
		if (kyc.CheckPathAndQuery(s, nil) == nil) != ok || (kyc.CheckPathAndQuery("", url.Values{"q": {s}}) == nil) != ok {
			t.Fatalf("CheckPathAndQuery disagrees with StorableText on %q", s)
		}
		if err := kyc.CheckPathAndQuery("", url.Values{s: {"v"}}); err != nil {
			for _, d := range kyc.AsError(err).Details {
				if !kyc.StorableText(d.Field) {
					t.Fatalf("detail field %q", d.Field)
				}
			}
		}
	})
}
