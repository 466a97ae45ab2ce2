// Package screening imports watch lists (sanctions, PEP, adverse media),
// indexes their names and screens people against them.
package screening

import "fmt"

// Kind is what a list is for; AML results are reported per kind (spec §2.3
// checkType).
type Kind string

// The three list kinds of spec §2.3.
const (
	Sanctions    Kind = "sanctions"
	PEP          Kind = "pep"
	AdverseMedia Kind = "adverse_media"
)

// Kinds lists every kind in the order results are reported.
var Kinds = []Kind{Sanctions, PEP, AdverseMedia}

// ParseKind accepts exactly one of Kinds.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown list kind %q (want sanctions, pep or adverse_media)", s)
}

// Schema is what kind of party an entity is. Only people are screened by
// AML checks and KYC, but organisations stay in the list so their names
// explain near misses and so in-house lists can hold them.
type Schema string

// Entity schemas.
const (
	Person       Schema = "person"
	Organization Schema = "organization"
	Vessel       Schema = "vessel"
	Aircraft     Schema = "aircraft"
	Unknown      Schema = "unknown"
)

// Entity is one listed party, the same shape whatever file it came from.
// It is stored as JSON in the list version and shown in match records, so
// field names are part of the API (spec §2.3 match record).
type Entity struct {
	// ID is the source's own identifier: OFAC ent_num, UN DATAID, an
	// OpenSanctions id, the in-house reference.
	ID     string `json:"id"`
	Schema Schema `json:"schema"`
	// Names[0] is the primary name.
	Names []Name `json:"names"`
	// DOBs are YYYY, YYYY-MM or YYYY-MM-DD; an OFAC "circa" or a UN
	// "BETWEEN" range is kept as each year it covers.
	DOBs []string `json:"dobs,omitempty"`
	// Countries are ISO 3166-1 alpha-2 codes (upper case) of nationality,
	// citizenship, birth place or address, deduplicated.
	Countries []string `json:"countries,omitempty"`
	// Programs are sanction programmes (OFAC SDGT, UN list type) or
	// OpenSanctions topics.
	Programs []string `json:"programs,omitempty"`
	// Reference is a human reference: UN reference number, source URL.
	Reference string `json:"reference,omitempty"`
	// Reason is free text explaining the listing (remarks, comments).
	Reason string `json:"reason,omitempty"`
	// Documents are identity document numbers found in the record
	// (passports, national ids), as "type: number".
	Documents []string `json:"documents,omitempty"`
}

// NameType says how a name belongs to its entity.
type NameType string

// Name types; weak aliases (OFAC "weak aka", UN quality "Low") match with a
// lower weight because lists themselves say they are unreliable.
const (
	Primary  NameType = "primary"
	Alias    NameType = "aka"
	Formerly NameType = "fka"
	Native   NameType = "native"
	Weak     NameType = "weak_aka"
)

// Name is one spelling of an entity's name as the list gives it.
type Name struct {
	Full string   `json:"full"`
	Type NameType `json:"type"`
}
