package kyc

import "strings"

// PersonalData says how an organization's compliance reports print
// personal data (organizations.report_personal_data).
type PersonalData string

// How reports print personal data. Full is the default: the report is the
// record of due diligence the regulated firm files, and the rules it
// keeps it under (e.g. the EU AML directive's record keeping of the
// identification documents and data, the US CIP rule's record of the
// document number) ask for the identifiers themselves. Masked is for
// firms that hand reports on or want them minimal: document numbers keep
// their last four characters, e-mail addresses and phone numbers are
// masked, and the MRZ and the document images are left out. One rule
// applies to every part of a report, its PDF and its JSON.
const (
	PersonalDataFull   PersonalData = "full"
	PersonalDataMasked PersonalData = "masked"
)

// ParsePersonalData reads a setting's value ("full" or "masked").
func ParsePersonalData(s string) (PersonalData, bool) {
	switch p := PersonalData(strings.TrimSpace(strings.ToLower(s))); p {
	case PersonalDataFull, PersonalDataMasked:
		return p, true
	}
	return "", false
}

// MaskNumber keeps the last four characters of a document number; a
// number of four or fewer is masked whole.
func MaskNumber(n string) string {
	r := []rune(n)
	if len(r) <= 4 {
		return strings.Repeat("*", len(r))
	}
	return strings.Repeat("*", len(r)-4) + string(r[len(r)-4:])
}

// MaskEmail keeps an address's first character and its domain:
// a***@example.org.
func MaskEmail(e string) string {
	local, domain, ok := strings.Cut(e, "@")
	r := []rune(local)
	if !ok || len(r) == 0 {
		return strings.Repeat("*", len([]rune(e)))
	}
	return string(r[0]) + "***@" + domain
}

// MaskPhone keeps a number's last three digits: +** *** ****567.
func MaskPhone(p string) string {
	r := []rune(p)
	keep := 0
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] >= '0' && r[i] <= '9' {
			if keep < 3 {
				keep++
				continue
			}
			r[i] = '*'
		}
	}
	return string(r)
}
