package docforensics

import (
	"testing"
	"time"

	"kycd/internal/forgery"
	"kycd/mrz"
)

// TestSpecimen builds MRZs from the published specimen data the table
// cites (not from the shared images) and from made-up ordinary people.
func TestSpecimen(t *testing.T) {
	for _, c := range []struct {
		name    string
		f       mrz.Format
		p       forgery.Person
		measure string // "" = no finding
	}{
		{"ICAO persona, TD3", mrz.TD3, forgery.Person{Surname: "ERIKSSON", Given: "ANNA MARIA", Number: "L898902C3", State: "UTO", Birth: "740812", Expiry: "340415", Sex: "F"}, "state"},
		{"ICAO number in another state", mrz.TD1, forgery.Person{Surname: "LINDQVIST", Given: "KARIN", Number: "D23145890", State: "SWE", Birth: "800101", Expiry: "320101", Sex: "F"}, "documentNumber"},
		{"ICAO holder in another state", mrz.TD3, forgery.Person{Surname: "ERIKSSON", Given: "ANNA MARIA", Number: "X1234567", State: "SWE", Birth: "740812", Expiry: "340415", Sex: "F"}, "holder"},
		{"German specimen card", mrz.TD1, forgery.Person{Surname: "MUSTERMANN", Given: "ERIKA", Number: "T22000129", State: "D<<", Birth: "640812", Expiry: "310101", Sex: "F"}, "documentNumber"},
		{"Czech VZOR", mrz.TD3, forgery.Person{Surname: "VZOR", Given: "JANA", Number: "12345678", State: "CZE", Birth: "900101", Expiry: "300101", Sex: "F"}, "nameWord"},
		{"Croatian UZORAK", mrz.TD1, forgery.Person{Surname: "UZORAK", Given: "IVAN", Number: "100000000", State: "HRV", Birth: "900101", Expiry: "300101", Sex: "M"}, "nameWord"},
		{"SPECIMEN as given name", mrz.TD3, forgery.Person{Surname: "HAPPY", Given: "SPECIMEN", Number: "AB1234567", State: "GBR", Birth: "900101", Expiry: "300101", Sex: "M"}, "nameWord"},
		{"Dutch specimen number", mrz.TD1, forgery.Person{Surname: "VISSER", Given: "ANNA", Number: "SPECI2014", State: "NLD", Birth: "650310", Expiry: "240309", Sex: "F"}, "documentNumber"},
		{"ordinary person", mrz.TD3, forgery.Person{Surname: "SMITH", Given: "JAMES", Number: "533401372", State: "GBR", Birth: "850303", Expiry: "310415", Sex: "M"}, ""},
		{"surname containing a word", mrz.TD3, forgery.Person{Surname: "MUSTERSON", Given: "ERIKA", Number: "533401373", State: "USA", Birth: "850303", Expiry: "310415", Sex: "F"}, ""},
		{"an Eriksson who is not Anna Maria", mrz.TD3, forgery.Person{Surname: "ERIKSSON", Given: "ANNA", Number: "553401372", State: "SWE", Birth: "850303", Expiry: "310415", Sex: "F"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := mrz.ParseLines(forgery.MRZ(c.f, c.p), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			fs := Specimen(d)
			if c.measure == "" {
				if len(fs) != 0 {
					t.Fatalf("flagged an ordinary document: %+v", fs)
				}
				return
			}
			for _, f := range fs {
				if f.Measure == c.measure && f.Code == CodeSpecimen {
					return
				}
			}
			t.Fatalf("want a %s finding, got %+v", c.measure, fs)
		})
	}
	if Specimen(nil) != nil {
		t.Fatal("no document, no finding")
	}
}
