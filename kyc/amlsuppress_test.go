package kyc

import "testing"

// TestSubjectKey: what counts as the same subject for a suppression.
// Spelling noise folds together; any difference in who the person is
// (another date of birth, none, another country, first and last name
// swapped, another name) does not.
func TestSubjectKey(t *testing.T) {
	s := func(v string) *string { return &v }
	base := SubjectKey("José", "Pérez-Ruiz", s("1980-02-03"), s("ES"))
	for _, tc := range []struct {
		name        string
		first, last string
		dob, c      *string
		same        bool
	}{
		{"identical", "José", "Pérez-Ruiz", s("1980-02-03"), s("ES"), true},
		{"case, accents, spaces, hyphen", "  jose ", "PEREZ  RUIZ", s("1980-02-03"), s("es"), true},
		{"compatibility form", "Ｊｏｓé", "Pérez Ruiz", s("1980-02-03"), s("ES"), true},
		{"another date of birth", "José", "Pérez-Ruiz", s("1980-02-04"), s("ES"), false},
		{"no date of birth", "José", "Pérez-Ruiz", nil, s("ES"), false},
		{"no country", "José", "Pérez-Ruiz", s("1980-02-03"), nil, false},
		{"another country", "José", "Pérez-Ruiz", s("1980-02-03"), s("MX"), false},
		{"names swapped", "Pérez-Ruiz", "José", s("1980-02-03"), s("ES"), false},
		{"name parts moved across", "José Pérez", "Ruiz", s("1980-02-03"), s("ES"), false},
		{"another name", "Josefa", "Pérez-Ruiz", s("1980-02-03"), s("ES"), false},
	} {
		if got := SubjectKey(tc.first, tc.last, tc.dob, tc.c) == base; got != tc.same {
			t.Errorf("%s: same = %v, want %v", tc.name, got, tc.same)
		}
	}
}
