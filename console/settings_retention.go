package console

import (
	"net/http"
	"strconv"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

// retentionField is one period of the retention form: the same four as
// kycd orgs update --retention-…, with the same bounds (store.SetRetention
// checks them again).
type retentionField struct {
	Name, Label, Unit string
	Value             string // as shown: the period in force, or as sent after an error
	Default, Max      int
}

// retentionFields lists the form's periods with the policy's values.
func retentionFields(p kyc.RetentionPolicy) []retentionField {
	d := kyc.DefaultRetention
	return []retentionField{
		{Name: "decidedYears", Label: "Decided live verifications, in years after the later of the last decision and the relationship end", Unit: "years",
			Value: strconv.Itoa(p.DecidedYears), Default: d.DecidedYears, Max: 50},
		{Name: "inactiveDays", Label: "Live verifications never decided (abandoned, expired, cancelled), in days after the last activity", Unit: "days",
			Value: strconv.Itoa(p.InactiveDays), Default: d.InactiveDays, Max: 36500},
		{Name: "sandboxDays", Label: "Sandbox data (applicants and AML checks), in days after the last activity", Unit: "days",
			Value: strconv.Itoa(p.SandboxDays), Default: d.SandboxDays, Max: 36500},
		{Name: "amlYears", Label: "Live AML checks not monitored, and monitoring history, in years after the last screening", Unit: "years",
			Value: strconv.Itoa(p.AMLYears), Default: d.AMLYears, Max: 50},
	}
}

// handleRetentionSettings handles "POST /console/settings/retention": how
// long the organization's personal data is kept (docs/personal-data.md).
// An empty field goes back to the default; only a changed policy is
// written (and audited).
func (c *console) handleRetentionSettings(w http.ResponseWriter, r *http.Request) error {
	org := sessionFrom(r).User.OrganizationID
	var change store.RetentionChange
	var errs []kyc.FieldError
	old, err := c.store.RetentionOf(r.Context(), org)
	if err != nil {
		return err
	}
	want := kyc.DefaultRetention
	for _, f := range []struct {
		name string
		dst  **int
		eff  *int
		def  int
		max  int
	}{{"decidedYears", &change.DecidedYears, &want.DecidedYears, kyc.DefaultRetention.DecidedYears, 50},
		{"inactiveDays", &change.InactiveDays, &want.InactiveDays, kyc.DefaultRetention.InactiveDays, 36500},
		{"sandboxDays", &change.SandboxDays, &want.SandboxDays, kyc.DefaultRetention.SandboxDays, 36500},
		{"amlYears", &change.AMLYears, &want.AMLYears, kyc.DefaultRetention.AMLYears, 50}} {
		n := 0
		if v := strings.TrimSpace(r.PostFormValue(f.name)); v != "" {
			var err error
			if n, err = strconv.Atoi(v); err != nil || n < 1 || n > f.max {
				errs = append(errs, kyc.FieldError{Field: f.name, Message: "must be a whole number from 1 to " + strconv.Itoa(f.max) + ", or empty for the default"})
				continue
			}
		}
		*f.dst = &n
		if n > 0 {
			*f.eff = n
		}
	}
	if len(errs) > 0 {
		return kyc.Invalid(errs...)
	}
	if want != old {
		if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
			_, err := tx.SetRetention(org, change)
			return err
		}); err != nil {
			return err
		}
	}
	return redirect(w, r, "/console/settings#retention", "retention-saved")
}
