package console

import (
	"testing"
	"time"

	"kycd/aml"
	"kycd/kyc"
)

// FuzzPastedRows: whatever a user pastes, the upload page's reading of it
// (withHeader, then the API's CSV reader and checks) answers rows or a
// validation error, never a panic or another error; every row is in order
// and either waits to be screened or was refused with its reasons.
func FuzzPastedRows(f *testing.F) {
	for _, s := range []string{
		"Maria,Kowalczyk,1975-03-02,PL,c-1\nErika,Mustermann",
		"firstName,lastName\nA,B\n",
		"\"=cmd\",x,,,\n",
		"a,b,c,d,e,f\n",
		"\xef\xbb\xbf\r\n\"",
	} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, pasted string) {
		rows, err := aml.BatchRowsFromCSV(withHeader([]byte(pasted)), now)
		if err != nil {
			if ke := kyc.AsError(err); ke == nil || ke.Code != kyc.EValidation {
				t.Fatalf("%q: %v", pasted, err)
			}
			return
		}
		for i, r := range rows {
			switch {
			case r.Index != i:
				t.Fatalf("%q: row %d has index %d", pasted, i, r.Index)
			case r.Status == kyc.AMLRowFailed && len(r.Errors) == 0:
				t.Fatalf("%q: row %d refused without a reason", pasted, i)
			case r.Status != kyc.AMLRowFailed && r.Status != kyc.AMLRowPending:
				t.Fatalf("%q: row %d is %s", pasted, i, r.Status)
			case r.Status == kyc.AMLRowPending && (r.Subject.FirstName == nil || r.Subject.LastName == nil):
				t.Fatalf("%q: row %d would be screened without a name", pasted, i)
			}
		}
	})
}
