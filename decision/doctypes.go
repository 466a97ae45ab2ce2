package decision

import "kycd/aamva"

// DocumentKind says how kycd reads one kind of identity document: from
// its image (the MRZ, or the licence barcode) with every field checked,
// or not at all, in which case a reviewer decides from the typed details
// and the photos.
type DocumentKind struct {
	DocumentType string   `json:"documentType"`
	Country      string   `json:"country,omitempty"` // ISO 3166-1 alpha-2; empty: any other country
	Reading      string   `json:"reading"`           // automatic or reviewer
	Source       string   `json:"source"`            // mrz, pdf417_aamva or none
	Formats      []string `json:"formats"`
	Sides        []string `json:"sides"`
	// Jurisdictions are the issuing states and provinces whose licence
	// barcodes are read (by their AAMVA issuer number).
	Jurisdictions []string `json:"jurisdictions,omitempty"`
	Note          string   `json:"note"`
}

var mrzFormats = map[string][]string{
	"passport":         {"TD3"},
	"id_card":          {"TD1", "TD2", "FRA_ID_1994"},
	"residence_permit": {"TD1", "TD2"},
}

// DocumentKinds lists what the engine reads, for country (alpha-2) or,
// when country is empty, for every country: each document type's entry
// for that country when there is one, else the entry for any country.
func DocumentKinds(country string) []DocumentKind {
	licence := func(cc, alpha3, typ string) DocumentKind {
		return DocumentKind{DocumentType: typ, Country: cc, Reading: "automatic", Source: "pdf417_aamva",
			Formats: []string{"AAMVA_DL_ID_01", "AAMVA_DL_ID_02", "AAMVA_DL_ID_03", "AAMVA_DL_ID_04", "AAMVA_DL_ID_05",
				"AAMVA_DL_ID_06", "AAMVA_DL_ID_07", "AAMVA_DL_ID_08", "AAMVA_DL_ID_09", "AAMVA_DL_ID_10"},
			Sides: []string{"front", "back"}, Jurisdictions: aamva.Jurisdictions(alpha3),
			Note: "The PDF417 barcode on the back is read at upload and again when the request is decided; a barcode whose AAMVA header or fields do not validate is not used and a reviewer decides."}
	}
	all := []DocumentKind{
		{DocumentType: "passport", Reading: "automatic", Source: "mrz", Formats: mrzFormats["passport"], Sides: []string{"front"},
			Note: "The machine-readable zone is read at upload and again when the request is decided."},
		{DocumentType: "id_card", Reading: "automatic", Source: "mrz", Formats: mrzFormats["id_card"], Sides: []string{"front", "back"},
			Note: "The machine-readable zone is read at upload and again when the request is decided; a card without one goes to a reviewer."},
		{DocumentType: "residence_permit", Reading: "automatic", Source: "mrz", Formats: mrzFormats["residence_permit"], Sides: []string{"front", "back"},
			Note: "The machine-readable zone is read at upload and again when the request is decided."},
		{DocumentType: "driving_licence", Reading: "reviewer", Source: "none", Formats: []string{}, Sides: []string{"front", "back"},
			Note: "Licences outside the US and Canada carry no machine-readable data kycd reads: a reviewer decides from the photos and the typed details."},
		licence("US", "USA", "driving_licence"),
		licence("CA", "CAN", "driving_licence"),
		licence("US", "USA", "id_card"),
		licence("CA", "CAN", "id_card"),
	}
	if country == "" {
		return all
	}
	specific := map[string]bool{}
	for _, k := range all {
		if k.Country == country {
			specific[k.DocumentType] = true
		}
	}
	var out []DocumentKind
	for _, k := range all {
		if k.Country == country || (k.Country == "" && !specific[k.DocumentType]) {
			out = append(out, k)
		}
	}
	return out
}
