package aml

import (
	"encoding/json"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestParseBatchCSV: what a CSV batch may look like, and what is refused.
func TestParseBatchCSV(t *testing.T) {
	for _, tt := range []struct {
		name, csv string
		rows      int
		first     string // the first subject as JSON
		problem   string // part of the error, "" when it parses
	}{
		{"plain", "firstName,lastName,dob,country,externalRef\nIvan,Sidorov,1980-02-03,RU,c-1\nAna,Lima,,,\n", 2,
			`{"country":"RU","dob":"1980-02-03","externalRef":"c-1","firstName":"Ivan","lastName":"Sidorov"}`, ""},
		{"header in any case and order, BOM", "\xef\xbb\xbfLast Name,first_name,Date-of-Birth\r\nLima,Ana,1990-01-02\r\n", 1,
			`{"dob":"1990-01-02","firstName":"Ana","lastName":"Lima"}`, ""},
		{"quoted comma", "firstName,lastName\n\"Ana, Maria\",Lima\n", 1, `{"firstName":"Ana, Maria","lastName":"Lima"}`, ""},
		{"header only", "firstName,lastName\n", 0, "", ""},
		{"empty", "", 0, "", "empty CSV"},
		{"unknown column", "firstName,lastName,ssn\n", 0, "", "not one of"},
		{"repeated column", "firstName,lastName,dob,DOB\n", 0, "", "appears twice"},
		{"no last name", "firstName,dob\n", 0, "", "must name firstName and lastName"},
		{"short row", "firstName,lastName\nAna\n", 0, "", "line 2"},
		{"bad quote", "firstName,lastName\n\"Ana,Lima\n", 0, "", "not valid CSV"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := ParseBatchCSV([]byte(tt.csv))
			if tt.problem != "" {
				ke := kyc.AsError(err)
				if ke == nil || len(ke.Details) == 0 || !strings.Contains(ke.Details[0].Message, tt.problem) {
					t.Fatalf("error %v, want one saying %q", err, tt.problem)
				}
				return
			}
			if err != nil || len(rows) != tt.rows {
				t.Fatalf("%d rows, %v; want %d", len(rows), err, tt.rows)
			}
			if tt.rows > 0 && string(rows[0]) != tt.first {
				t.Errorf("first subject %s, want %s", rows[0], tt.first)
			}
		})
	}
	many := "firstName,lastName\n" + strings.Repeat("A,B\n", kyc.MaxBatchSubjects+1)
	if _, err := ParseBatchCSV([]byte(many)); kyc.AsError(err) == nil {
		t.Error("more than 10,000 rows accepted")
	}
}

// FuzzParseBatchCSV: any upload either parses into at most 10,000 JSON
// objects of string fields or is a VALIDATION_ERROR; it never panics.
func FuzzParseBatchCSV(f *testing.F) {
	for _, s := range []string{"firstName,lastName\nA,B\n", "\xef\xbb\xbfdob,lastName,firstName\r\n1990-01-01,B,A", "firstName,lastName\n\"A\"\"\",B\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ParseBatchCSV(b)
		if err != nil {
			if ke := kyc.AsError(err); ke == nil || ke.Code != kyc.EValidation {
				t.Fatalf("not a validation error: %v", err)
			}
			return
		}
		if len(rows) > kyc.MaxBatchSubjects {
			t.Fatalf("%d rows", len(rows))
		}
		for _, r := range rows {
			var m map[string]string
			if err := json.Unmarshal(r, &m); err != nil {
				t.Fatalf("row %s: %v", r, err)
			}
		}
	})
}
