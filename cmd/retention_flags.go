package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

// retentionFlags set an organization's retention policy (docs/personal-data.md
// "Personal data"); each takes a number or 'default'.
type retentionFlags struct {
	RetentionDecidedYears string `name:"retention-decided-years" env:"KYCD_RETENTION_DECIDED_YEARS" placeholder:"N|default" help:"Years live personal data is kept after the later of the last decision of a decided KYC request and the applicant's relationship end date (1-50; default 5)."`
	RetentionInactiveDays string `name:"retention-inactive-days" env:"KYCD_RETENTION_INACTIVE_DAYS" placeholder:"N|default" help:"Days live personal data is kept after the last activity when nothing was decided: abandoned, expired, cancelled (1-36500; default 90)."`
	RetentionSandboxDays  string `name:"retention-sandbox-days" env:"KYCD_RETENTION_SANDBOX_DAYS" placeholder:"N|default" help:"Days sandbox personal data (applicants and AML checks) is kept after its last activity (1-36500; default 30)."`
	RetentionAMLYears     string `name:"retention-aml-years" env:"KYCD_RETENTION_AML_YEARS" placeholder:"N|default" help:"Years a live AML check that is not monitored is kept after its last screening, and monitoring history rows after they were screened (1-50; default 5)."`

	result *kyc.RetentionPolicy
}

func (f *retentionFlags) given() bool {
	return f.RetentionDecidedYears != "" || f.RetentionInactiveDays != "" || f.RetentionSandboxDays != "" || f.RetentionAMLYears != ""
}

// read parses the flags: nil for a flag not given, 0 for 'default'.
func (f *retentionFlags) read() (store.RetentionChange, error) {
	var c store.RetentionChange
	for _, v := range []struct {
		flag, value string
		dst         **int
		max         int
	}{{"--retention-decided-years", f.RetentionDecidedYears, &c.DecidedYears, 50},
		{"--retention-inactive-days", f.RetentionInactiveDays, &c.InactiveDays, 36500},
		{"--retention-sandbox-days", f.RetentionSandboxDays, &c.SandboxDays, 36500},
		{"--retention-aml-years", f.RetentionAMLYears, &c.AMLYears, 50}} {
		if v.value == "" {
			continue
		}
		n := 0
		if t := strings.TrimSpace(v.value); t != "default" {
			var err error
			if n, err = strconv.Atoi(t); err != nil || n < 1 || n > v.max {
				return c, fmt.Errorf("%s %q must be a whole number from 1 to %d, or 'default'", v.flag, v.value, v.max)
			}
		}
		*v.dst = &n
	}
	return c, nil
}
