package console

import (
	"testing"

	"kycd/kyc"
)

// TestCompareLicenceBarcode: the reviewer's comparison shows what the
// engine read from a licence's barcode, as it shows an MRZ.
func TestCompareLicenceBarcode(t *testing.T) {
	dob := "1986-06-06"
	a := &kyc.Applicant{FirstName: "Michael John", LastName: "Sampel", DOB: &dob}
	pr := map[string]any{"signals": []any{map[string]any{"name": "document_data", "data": map[string]any{
		"source": "document_image",
		"document": map[string]any{"format": "AAMVA", "surname": "SAMPLE", "givenNames": "MICHAEL JOHN", "birthDate": "1986-06-06",
			"documentNumber": "*****5789", "expiryDate": "2024-12-10"},
	}}}}
	rows := compare(a, &kyc.DocumentData{DocumentNumber: "T64235789"}, pr)
	got := map[string]compareRow{}
	for _, r := range rows {
		got[r.Field] = r
	}
	if r := got["Surname"]; r.Document != "SAMPLE" || !r.Differs {
		t.Errorf("surname %+v", r)
	}
	if r := got["Given names"]; r.Document != "MICHAEL JOHN" || r.Differs {
		t.Errorf("given names %+v", r)
	}
	if r := got["Document number"]; r.Document != "*****5789" || r.Differs {
		t.Errorf("number %+v", r)
	}
}
