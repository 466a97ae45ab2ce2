package aml

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"kycd/kyc"
)

// batchCSVColumns are the columns a CSV batch may have (header names are
// matched without regard to case, spaces, dashes or underscores).
var batchCSVColumns = map[string]string{
	"firstname": "firstName", "lastname": "lastName", "dob": "dob", "dateofbirth": "dob", "country": "country",
	"externalref": "externalRef",
}

// ParseBatchCSV reads a CSV batch: a header row naming the columns, then
// one subject per row; an empty cell is an absent field. Each subject is
// returned as the JSON object a JSON batch would hold, so both are
// validated the same way. A malformed file, an unknown or repeated
// column, or a header without firstName and lastName is a
// VALIDATION_ERROR naming the problem.
func ParseBatchCSV(b []byte) ([]json.RawMessage, error) {
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

// BatchSubjectErrors are the problems of one batch subject beyond its
// fields' JSON types: the external reference's length and everything an
// AML check's input is held to. The API and the console's upload page
// check subjects with it alike.
func BatchSubjectErrors(sub kyc.AMLBatchSubject, now time.Time) []kyc.FieldError {
	var errs []kyc.FieldError
	if ref := sub.ExternalRef; ref != nil && (strings.TrimSpace(*ref) == "" || utf8.RuneCountInString(*ref) > 255) {
		errs = append(errs, kyc.FieldError{Field: "externalRef", Message: "must be 1 to 255 characters"})
	}
	in := kyc.AMLCheckInput{FirstName: sub.FirstName, LastName: sub.LastName, DOB: sub.DOB, Country: sub.Country}
	return append(errs, in.Validate(now)...)
}

// BatchRowsFromCSV reads a CSV batch (ParseBatchCSV) into rows, each
// checked by BatchSubjectErrors: a row with problems is a failed row
// naming them, so that one typo does not refuse the file.
func BatchRowsFromCSV(b []byte, now time.Time) ([]kyc.AMLBatchRow, error) {
	list, err := ParseBatchCSV(b)
	if err != nil {
		return nil, err
	}
	rows := make([]kyc.AMLBatchRow, len(list))
	for i, raw := range list {
		var m map[string]string
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("decode csv row: %w", err)
		}
		opt := func(k string) *string {
			if v, ok := m[k]; ok {
				return &v
			}
			return nil
		}
		sub := kyc.AMLBatchSubject{FirstName: opt("firstName"), LastName: opt("lastName"), DOB: opt("dob"), Country: opt("country"),
			ExternalRef: opt("externalRef")}
		rows[i] = kyc.AMLBatchRow{Index: i, Status: kyc.AMLRowPending, Subject: sub}
		if errs := BatchSubjectErrors(sub, now); len(errs) > 0 {
			rows[i].Status, rows[i].Errors = kyc.AMLRowFailed, errs
		}
	}
	return rows, nil
}
