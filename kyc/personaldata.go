package kyc

import (
	"fmt"
	"net/netip"
	"strings"
)

// PersonalData says how an organization's compliance reports print
// personal data (organizations.report_personal_data).
type PersonalData string

// How reports print personal data. Full is the default: the report is the
// record of due diligence the regulated firm files, and the rules it
// keeps it under (e.g. the EU AML directive's record keeping of the
// identification documents and data, the US CIP rule's record of the
// document number) ask for the identifiers themselves. Masked is for
// firms that hand reports on or want them minimal: document numbers keep
// their last four characters, e-mail addresses, phone numbers and IP
// addresses are masked, and the MRZ and the document images are left
// out. One rule applies to every part of a report, its PDF and its JSON.
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

// MaskIP keeps an address's network: 203.0.113.* for IPv4, the first
// three groups for IPv6 (2001:db8:1:*). Text that is not an address is
// masked whole.
func MaskIP(s string) string {
	a, err := netip.ParseAddr(strings.TrimSpace(s))
	switch {
	case err != nil:
		return strings.Repeat("*", len([]rune(s)))
	case a.Is4() || a.Is4In6():
		b := a.Unmap().As4()
		return fmt.Sprintf("%d.%d.%d.*", b[0], b[1], b[2])
	}
	b := a.As16()
	return fmt.Sprintf("%x:%x:%x:*", uint16(b[0])<<8|uint16(b[1]), uint16(b[2])<<8|uint16(b[3]), uint16(b[4])<<8|uint16(b[5]))
}
