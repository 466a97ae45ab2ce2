package aamva

import "slices"

// Issuer is a jurisdiction that issues AAMVA DL/ID cards.
type Issuer struct {
	Code    string // the jurisdiction's postal abbreviation ("VA", "ON")
	Name    string
	Country string // ISO 3166-1 alpha-3: USA, CAN or MEX
}

// issuers maps the Issuer Identification Number (ISO/IEC 7812, assigned by
// AAMVA) in the header to its jurisdiction. An IIN that is not here is
// refused: the reader cannot say who issued the card.
var issuers = map[string]Issuer{
	"636033": {"AL", "Alabama", "USA"},
	"636059": {"AK", "Alaska", "USA"},
	"604427": {"AS", "American Samoa", "USA"},
	"636026": {"AZ", "Arizona", "USA"},
	"636021": {"AR", "Arkansas", "USA"},
	"636014": {"CA", "California", "USA"},
	"636020": {"CO", "Colorado", "USA"},
	"636006": {"CT", "Connecticut", "USA"},
	"636011": {"DE", "Delaware", "USA"},
	"636043": {"DC", "District of Columbia", "USA"},
	"636010": {"FL", "Florida", "USA"},
	"636055": {"GA", "Georgia", "USA"},
	"636019": {"GU", "Guam", "USA"},
	"636047": {"HI", "Hawaii", "USA"},
	"636050": {"ID", "Idaho", "USA"},
	"636035": {"IL", "Illinois", "USA"},
	"636037": {"IN", "Indiana", "USA"},
	"636018": {"IA", "Iowa", "USA"},
	"636022": {"KS", "Kansas", "USA"},
	"636046": {"KY", "Kentucky", "USA"},
	"636007": {"LA", "Louisiana", "USA"},
	"636041": {"ME", "Maine", "USA"},
	"636003": {"MD", "Maryland", "USA"},
	"636002": {"MA", "Massachusetts", "USA"},
	"636032": {"MI", "Michigan", "USA"},
	"636038": {"MN", "Minnesota", "USA"},
	"636051": {"MS", "Mississippi", "USA"},
	"636030": {"MO", "Missouri", "USA"},
	"636008": {"MT", "Montana", "USA"},
	"636054": {"NE", "Nebraska", "USA"},
	"636049": {"NV", "Nevada", "USA"},
	"636039": {"NH", "New Hampshire", "USA"},
	"636036": {"NJ", "New Jersey", "USA"},
	"636009": {"NM", "New Mexico", "USA"},
	"636001": {"NY", "New York", "USA"},
	"636004": {"NC", "North Carolina", "USA"},
	"636034": {"ND", "North Dakota", "USA"},
	"604430": {"MP", "Northern Mariana Islands", "USA"},
	"636023": {"OH", "Ohio", "USA"},
	"636058": {"OK", "Oklahoma", "USA"},
	"636029": {"OR", "Oregon", "USA"},
	"636025": {"PA", "Pennsylvania", "USA"},
	"604431": {"PR", "Puerto Rico", "USA"},
	"636052": {"RI", "Rhode Island", "USA"},
	"636005": {"SC", "South Carolina", "USA"},
	"636042": {"SD", "South Dakota", "USA"},
	"636053": {"TN", "Tennessee", "USA"},
	"636015": {"TX", "Texas", "USA"},
	"636027": {"DS", "U.S. Department of State", "USA"},
	"636062": {"VI", "U.S. Virgin Islands", "USA"},
	"636040": {"UT", "Utah", "USA"},
	"636024": {"VT", "Vermont", "USA"},
	"636000": {"VA", "Virginia", "USA"},
	"636045": {"WA", "Washington", "USA"},
	"636061": {"WV", "West Virginia", "USA"},
	"636031": {"WI", "Wisconsin", "USA"},
	"636060": {"WY", "Wyoming", "USA"},
	"604432": {"AB", "Alberta", "CAN"},
	"636028": {"BC", "British Columbia", "CAN"},
	"636048": {"MB", "Manitoba", "CAN"},
	"636017": {"NB", "New Brunswick", "CAN"},
	"636016": {"NL", "Newfoundland and Labrador", "CAN"},
	"604434": {"NT", "Northwest Territories", "CAN"},
	"636013": {"NS", "Nova Scotia", "CAN"},
	"604433": {"NU", "Nunavut", "CAN"},
	"636012": {"ON", "Ontario", "CAN"},
	"604426": {"PE", "Prince Edward Island", "CAN"},
	"604428": {"QC", "Quebec", "CAN"},
	"636044": {"SK", "Saskatchewan", "CAN"},
	"604429": {"YT", "Yukon", "CAN"},
	"636056": {"COA", "Coahuila", "MEX"},
	"636057": {"HID", "Hidalgo", "MEX"},
}

// LookupIIN returns the jurisdiction that an IIN names.
func LookupIIN(iin string) (Issuer, bool) {
	is, ok := issuers[iin]
	return is, ok
}

// Jurisdictions returns the codes of the jurisdictions of country (ISO
// 3166-1 alpha-3) whose cards the parser reads, sorted.
func Jurisdictions(country string) []string {
	var out []string
	for _, is := range issuers {
		if is.Country == country && is.Code != "DS" {
			out = append(out, is.Code)
		}
	}
	slices.Sort(out)
	return out
}
