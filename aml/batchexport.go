package aml

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"kycd/internal/csvsafe"
	"kycd/kyc"
)

// WriteBatchCSV writes a batch's rows with their outcomes as CSV safe to
// open in a spreadsheet, for the API's and the console's exports alike.
// Dates of birth and countries are columns only when personal is true (the
// console leaves them out for roles that may not see personal data).
func WriteBatchCSV(w io.Writer, rows []kyc.AMLBatchRow, personal bool) error {
	cw := csvsafe.NewWriter(w)
	header := []string{"index", "status", "firstName", "lastName"}
	if personal {
		header = append(header, "dob", "country")
	}
	if err := cw.Write(append(header, "externalRef", "checkId", "checkStatus", "riskLevel", "matchCount", "reviewStatus", "errors")); err != nil {
		return err
	}
	for _, row := range rows {
		var status, risk, matches, review string
		if row.CheckStatus != nil {
			status, matches, review = string(*row.CheckStatus), strconv.Itoa(*row.MatchCount), string(*row.ReviewStatus)
			if row.RiskLevel != nil {
				risk = string(*row.RiskLevel)
			}
		}
		var errs []string
		for _, e := range row.Errors {
			errs = append(errs, e.Field+": "+e.Message)
		}
		sub := row.Subject
		rec := []string{strconv.Itoa(row.Index), string(row.Status), deref(sub.FirstName), deref(sub.LastName)}
		if personal {
			rec = append(rec, deref(sub.DOB), deref(sub.Country))
		}
		rec = append(rec, deref(sub.ExternalRef), deref(row.CheckID), status, risk, matches, review, strings.Join(errs, "; "))
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	if err := cw.Flush(); err != nil {
		return fmt.Errorf("batch export: %w", err)
	}
	return nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
