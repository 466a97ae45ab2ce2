package server

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"kycd/kyc"
)

// batchCSVColumns are the columns a CSV batch may have (header names are
// matched without regard to case, spaces, dashes or underscores).
var batchCSVColumns = map[string]string{
	"firstname": "firstName", "lastname": "lastName", "dob": "dob", "dateofbirth": "dob", "country": "country",
	"externalref": "externalRef",
}

// parseBatchCSV reads a CSV batch: a header row naming the columns, then
// one subject per row; an empty cell is an absent field. Each subject is
// returned as the JSON object a JSON batch would hold, so both are
// validated the same way. A malformed file, an unknown or repeated
// column, or a header without firstName and lastName is a
// VALIDATION_ERROR naming the problem.
func parseBatchCSV(b []byte) ([]json.RawMessage, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a spreadsheet's byte-order mark
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = 0 // every row as long as the header
	r.ReuseRecord = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, kyc.Invalid(kyc.FieldError{Field: "body", Message: "is an empty CSV file: send a header row and one row per subject"})
	}
	if err != nil {
		return nil, csvProblem(err)
	}
	cols := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		key := strings.NewReplacer(" ", "", "_", "", "-", "").Replace(strings.ToLower(strings.TrimSpace(h)))
		name, ok := batchCSVColumns[key]
		switch {
		case !ok:
			return nil, kyc.Invalid(kyc.FieldError{Field: "body", Message: fmt.Sprintf("column %d (%.40q) is not one of firstName, lastName, dob, country, externalRef", i+1, h)})
		case seen[name]:
			return nil, kyc.Invalid(kyc.FieldError{Field: "body", Message: fmt.Sprintf("column %s appears twice", name)})
		}
		seen[name], cols[i] = true, name
	}
	if !seen["firstName"] || !seen["lastName"] {
		return nil, kyc.Invalid(kyc.FieldError{Field: "body", Message: "the header must name firstName and lastName"})
	}
	var out []json.RawMessage
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, csvProblem(err)
		}
		if len(out) == kyc.MaxBatchSubjects {
			return nil, kyc.Invalid(kyc.FieldError{Field: "subjects", Message: fmt.Sprintf("must hold at most %d subjects", kyc.MaxBatchSubjects)})
		}
		obj := make(map[string]string, len(rec))
		for i, v := range rec {
			if v != "" {
				obj[cols[i]] = v
			}
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("encode csv row: %w", err)
		}
		out = append(out, raw)
	}
}

func csvProblem(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return kyc.Invalid(kyc.FieldError{Field: "body", Message: fmt.Sprintf("is not valid CSV: line %d: %v", pe.Line, pe.Err)})
	}
	return kyc.Invalid(kyc.FieldError{Field: "body", Message: "is not valid CSV"})
}
