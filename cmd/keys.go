package cmd

import (
	"cmp"
	"encoding/json"
	"os"

	"fmt"
	"kycd/decision"
	"strconv"
	"strings"
	"text/tabwriter"

	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// OrgsCmd groups the organization commands.
type OrgsCmd struct {
	Create OrgsCreateCmd `cmd:"" help:"Create an organization and print its id."`
	List   OrgsListCmd   `cmd:"" help:"List organizations."`
	Update OrgsUpdateCmd `cmd:"" help:"Change an organization's settings."`
	// CallbackSecret manages what signs deliveries to callbackUrl.
	CallbackSecret OrgsCallbackSecretCmd `cmd:"" name:"callback-secret" help:"The secret that signs deliveries to KYC requests' callbackUrl."`
}

// OrgsCreateCmd creates an organization.
type OrgsCreateCmd struct {
	dbFlag
	masterKeyFlag
	Name  string `required:"" env:"KYCD_ORG_NAME" help:"Organization name."`
	Email string `env:"KYCD_ORG_EMAIL" help:"Compliance contact e-mail (receives operational notices)."`
}

// Run creates the organization and prints org_<ulid> alone on a line.
func (c *OrgsCreateCmd) Run(e *env) error {
	if strings.TrimSpace(c.Name) == "" {
		return fmt.Errorf("--name must not be empty")
	}
	c.Email = strings.TrimSpace(c.Email)
	if err := kyc.CheckContactEmail(c.Email); err != nil {
		return fmt.Errorf("--email %q must be a bare e-mail address such as compliance@example.com", c.Email)
	}
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	var org *kyc.Organization
	err = s.InTx(e.ctx, func(tx *store.Tx) (err error) {
		org, err = tx.CreateOrganization(strings.TrimSpace(c.Name), c.Email)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, org.ID)
	return nil
}

// OrgsListCmd lists organizations.
type OrgsListCmd struct {
	dbFlag
}

// Run prints one organization per line.
func (c *OrgsListCmd) Run(e *env) error {
	s, err := openStore(e.ctx, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	orgs, err := s.FindOrganizations(e.ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tCONTACT\tAML THRESHOLD\tCREATED\tAML KINDS")
	for _, o := range orgs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", o.ID, o.Name, o.ContactEmail, thresholdText(o.AMLThreshold), kyc.FormatTime(o.CreatedAt), kindsText(o.AMLKinds))
	}
	return tw.Flush()
}

func thresholdText(t *float64) string {
	if t == nil {
		return "default (" + strconv.FormatFloat(screening.DefaultThreshold, 'f', -1, 64) + ")"
	}
	return strconv.FormatFloat(*t, 'f', -1, 64)
}

// OrgsUpdateCmd changes an organization's settings.
type OrgsUpdateCmd struct {
	dbFlag
	masterKeyFlag
	OrgID        string  `arg:"" name:"ORG_ID" help:"org_<ulid>"`
	ContactEmail *string `name:"contact-email" placeholder:"ADDRESS" help:"Compliance contact e-mail: receives operational notices, such as a webhook endpoint disabled after failing; '' removes it."`
	AMLThreshold string  `name:"aml-threshold" env:"KYCD_AML_THRESHOLD" placeholder:"T|default" help:"Match score from which a listed name is reported, greater than 0 and at most 1 (higher: fewer, closer matches); 'default' goes back to the built-in default. Applies to new AML checks; monitored checks keep the threshold they were created with."`
	Policy       string  `name:"policy" env:"KYCD_DECISION_POLICY" placeholder:"FILE|default" help:"Decision policy JSON file (validated; fields left out keep the default's values); 'default' goes back to the built-in policy. See docs/decisions.md."`
	FourEyes     string  `name:"four-eyes" enum:",on,off" default:"" env:"KYCD_FOUR_EYES" help:"on: live manual decisions need two different reviewers; off: one."`
	// ReportPersonalData is how compliance reports print personal data.
	ReportPersonalData string `name:"report-personal-data" enum:",full,masked" default:"" env:"KYCD_REPORT_PERSONAL_DATA" help:"How compliance reports (PDF and report.json) print personal data: full (the default: every identifier, for the record the firm files) or masked (document numbers keep their last four characters, e-mail, phone and IP addresses masked, no MRZ or document images)."`
	retentionFlags
	// ReviewSLALive and ReviewSLASandbox are review due times.
	ReviewSLALive    string `name:"review-sla-live" placeholder:"HOURS|none" help:"Hours a submitted live request may wait for review before it is overdue (1 to 8760); 'none' removes the due time."`
	ReviewSLASandbox string `name:"review-sla-sandbox" placeholder:"HOURS|none" help:"The same for sandbox requests."`
	brandingFlags
	AMLKinds string `name:"aml-kinds" env:"KYCD_AML_KINDS" placeholder:"KINDS|default" help:"List kinds the organization screens, comma-separated: sanctions (always) plus pep and/or adverse_media; the others are reported not_screened. 'default': sanctions plus every kind the installation has a list of."`
	policyDryRun
}

// Run applies the given settings and prints the organization's new ones.
func (c *OrgsUpdateCmd) Run(e *env) error {
	if c.DryRun {
		return c.dryRun(e)
	}
	if c.AMLThreshold == "" && c.Policy == "" && c.FourEyes == "" && c.AMLKinds == "" && c.ReportPersonalData == "" && c.ContactEmail == nil &&
		c.ReviewSLALive == "" && c.ReviewSLASandbox == "" && !c.brandingFlags.given() && !c.retentionFlags.given() {
		return fmt.Errorf("nothing to change: give --contact-email, --aml-threshold, --policy, --four-eyes, --aml-kinds, --report-personal-data, --review-sla-live, --review-sla-sandbox or a --retention-… flag, or a branding flag (--display-name, --support-email, --privacy-url, --logo, --brand-color, --default-locale)")
	}
	sla := map[kyc.Environment]int{}
	for _, f := range []struct {
		e    kyc.Environment
		flag string
		v    string
	}{{kyc.Live, "--review-sla-live", c.ReviewSLALive}, {kyc.Sandbox, "--review-sla-sandbox", c.ReviewSLASandbox}} {
		if f.v == "" || f.v == "none" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(f.v))
		if err != nil || n < 1 || n > store.MaxSLAHours {
			return fmt.Errorf("%s %q must be a whole number of hours from 1 to %d, or 'none'", f.flag, f.v, store.MaxSLAHours)
		}
		sla[f.e] = n
	}
	if c.ContactEmail != nil {
		*c.ContactEmail = strings.TrimSpace(*c.ContactEmail)
		if err := kyc.CheckContactEmail(*c.ContactEmail); err != nil {
			return fmt.Errorf("--contact-email %q must be a bare e-mail address such as compliance@example.com, or '' to remove it", *c.ContactEmail)
		}
	}
	retention, err := c.retentionFlags.read()
	if err != nil {
		return err
	}
	var kinds []string
	if c.AMLKinds != "" && c.AMLKinds != "default" {
		var err error
		if kinds, err = kyc.ParseAMLKinds(c.AMLKinds); err != nil {
			return fmt.Errorf("--aml-kinds: %w", err)
		}
	}
	brand, err := c.brandingFlags.read()
	if err != nil {
		return err
	}
	var t *float64
	if c.AMLThreshold != "" && c.AMLThreshold != "default" {
		v, err := strconv.ParseFloat(strings.TrimSpace(c.AMLThreshold), 64)
		if err != nil || !(v > 0 && v <= 1) { // also refuses NaN
			return fmt.Errorf("--aml-threshold %q must be a number greater than 0 and at most 1, or 'default'", c.AMLThreshold)
		}
		t = &v
	}
	var policy []byte
	if c.Policy != "" && c.Policy != "default" {
		b, err := os.ReadFile(c.Policy)
		if err != nil {
			return fmt.Errorf("--policy: %w", err)
		}
		p, err := decision.ParsePolicy(b)
		if err == nil {
			err = decision.CheckFloor(p)
		}
		if err != nil {
			return fmt.Errorf("--policy %s: %w", c.Policy, err)
		}
		if policy, err = json.Marshal(p); err != nil {
			return err
		}
	}
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	err = s.InTx(e.ctx, func(tx *store.Tx) error {
		if c.ContactEmail != nil {
			if err := tx.SetContactEmail(c.OrgID, *c.ContactEmail); err != nil {
				return err
			}
		}
		if c.AMLThreshold != "" {
			if err := tx.SetAMLThreshold(c.OrgID, t); err != nil {
				return err
			}
		}
		if c.Policy != "" {
			if policy != nil {
				if err := checkNewVersion(tx, c.OrgID, policy); err != nil {
					return err
				}
			}
			if err := tx.SetDecisionPolicy(c.OrgID, policy); err != nil {
				return err
			}
		}
		if c.AMLKinds != "" {
			if err := tx.SetAMLKinds(c.OrgID, kinds); err != nil {
				return err
			}
		}
		if c.FourEyes != "" {
			if err := tx.SetFourEyes(c.OrgID, c.FourEyes == "on"); err != nil {
				return err
			}
		}
		if c.ReportPersonalData != "" {
			if err := tx.SetReportPersonalData(c.OrgID, kyc.PersonalData(c.ReportPersonalData)); err != nil {
				return err
			}
		}
		if c.retentionFlags.given() {
			p, err := tx.SetRetention(c.OrgID, retention)
			if err != nil {
				return err
			}
			c.retentionFlags.result = &p
		}
		if c.ReviewSLALive != "" {
			if err := tx.SetReviewSLA(c.OrgID, kyc.Live, sla[kyc.Live]); err != nil {
				return err
			}
		}
		if c.ReviewSLASandbox != "" {
			if err := tx.SetReviewSLA(c.OrgID, kyc.Sandbox, sla[kyc.Sandbox]); err != nil {
				return err
			}
		}
		return brand.apply(tx, c.OrgID)
	})
	if err != nil {
		return err
	}
	if c.ContactEmail != nil {
		fmt.Fprintf(e.stdout, "%s: contact e-mail %s\n", c.OrgID, cmp.Or(*c.ContactEmail, "(none)"))
	}
	if c.AMLThreshold != "" {
		fmt.Fprintf(e.stdout, "%s: AML threshold %s\n", c.OrgID, thresholdText(t))
	}
	if c.Policy != "" {
		v := "default"
		if policy != nil {
			var p decision.Policy
			if err := json.Unmarshal(policy, &p); err != nil {
				return err
			}
			v = p.Version
		}
		fmt.Fprintf(e.stdout, "%s: decision policy %s\n", c.OrgID, v)
	}
	if c.FourEyes != "" {
		fmt.Fprintf(e.stdout, "%s: four-eyes review %s\n", c.OrgID, c.FourEyes)
	}
	if c.AMLKinds != "" {
		fmt.Fprintf(e.stdout, "%s: AML kinds %s\n", c.OrgID, kindsText(kinds))
	}
	if c.ReportPersonalData != "" {
		fmt.Fprintf(e.stdout, "%s: report personal data %s\n", c.OrgID, c.ReportPersonalData)
	}
	if p := c.retentionFlags.result; p != nil {
		fmt.Fprintf(e.stdout, "%s: retention: decided %d years after the later of the last decision and the relationship end, inactive %d days, sandbox %d days, AML checks %d years\n",
			c.OrgID, p.DecidedYears, p.InactiveDays, p.SandboxDays, p.AMLYears)
	}
	for _, f := range []struct {
		e kyc.Environment
		v string
	}{{kyc.Live, c.ReviewSLALive}, {kyc.Sandbox, c.ReviewSLASandbox}} {
		if f.v != "" {
			fmt.Fprintf(e.stdout, "%s: %s review due time %s\n", c.OrgID, f.e, slaText(sla[f.e]))
		}
	}
	brand.print(e, c.OrgID)
	return nil
}

func slaText(hours int) string {
	if hours == 0 {
		return "none"
	}
	return strconv.Itoa(hours) + " h after submission"
}

// kindsText shows an organization's AML kinds setting.
func kindsText(kinds []string) string {
	if kinds == nil {
		return "default (sanctions + every kind with a list)"
	}
	return strings.Join(kinds, ",")
}

// KeysCmd groups the API key commands.
type KeysCmd struct {
	Create KeysCreateCmd `cmd:"" help:"Create an API key and print it (the only time it is shown)."`
	List   KeysListCmd   `cmd:"" help:"List API keys (never their secrets)."`
	Revoke KeysRevokeCmd `cmd:"" help:"Revoke an API key; it fails on its next request."`
}

// KeysCreateCmd creates an API key.
type KeysCreateCmd struct {
	dbFlag
	masterKeyFlag
	Org  string `required:"" env:"KYCD_ORG" help:"Organization id (org_<ulid>)."`
	Env  string `required:"" enum:"sandbox,live" env:"KYCD_ENV" help:"Environment the key is bound to: sandbox or live."`
	Tier string `enum:"free,starter,pro" default:"free" env:"KYCD_TIER" help:"Tier of a live key: free (60/min), starter (300/min), pro (1000/min). Sandbox keys get 60/min."`
	RPM  *int   `name:"rpm" env:"KYCD_RPM" help:"Override the per-minute request limit, 1 to 1000000 (0 = unlimited), for on-prem operators."`
	Name string `env:"KYCD_KEY_NAME" help:"A label, e.g. the service that uses the key."`
}

// Run creates the key and prints the full key alone on a line.
func (c *KeysCreateCmd) Run(e *env) error {
	if c.Env == string(kyc.Sandbox) && c.Tier != string(kyc.TierFree) {
		return fmt.Errorf("--tier applies to live keys only; sandbox keys are limited to 60 requests per minute (use --rpm to override)")
	}
	if c.RPM != nil && *c.RPM > kyc.MaxRPM {
		return fmt.Errorf("--rpm %d is above the maximum of %d requests per minute (about 16,700 a second, more than one kycd serves); use --rpm 0 for no limit",
			*c.RPM, kyc.MaxRPM)
	}
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	var token string
	err = s.InTx(e.ctx, func(tx *store.Tx) (err error) {
		_, token, err = tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: c.Org, Environment: kyc.Environment(c.Env),
			Tier: kyc.Tier(c.Tier), RPMOverride: c.RPM, Name: c.Name})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, token)
	return nil
}

// KeysListCmd lists keys.
type KeysListCmd struct {
	dbFlag
	Org string `env:"KYCD_ORG" help:"Only this organization's keys."`
}

// Run prints one key per line, without secrets.
func (c *KeysListCmd) Run(e *env) error {
	s, err := openStore(e.ctx, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	keys, err := s.FindAPIKeys(e.ctx, c.Org)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY ID\tPREFIX\tORG\tENV\tTIER\tLIMIT/MIN\tNAME\tCREATED\tREVOKED")
	for _, k := range keys {
		limit := fmt.Sprint(k.RequestsPerMinute())
		if limit == "0" {
			limit = "unlimited"
		}
		revoked := "-"
		if k.RevokedAt != nil {
			revoked = kyc.FormatTime(*k.RevokedAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Prefix(), k.OrganizationID, k.Environment, k.Tier,
			limit, k.Name, kyc.FormatTime(k.CreatedAt), revoked)
	}
	return tw.Flush()
}

// KeysRevokeCmd revokes a key.
type KeysRevokeCmd struct {
	dbFlag
	masterKeyFlag
	KeyID string `arg:"" name:"KEY_ID" help:"The key's id (the <ulid> part; a svc_test_/svc_live_ prefix or a whole key is accepted too)."`
}

// Run revokes the key.
func (c *KeysRevokeCmd) Run(e *env) error {
	id := c.KeyID
	id = strings.TrimPrefix(strings.TrimPrefix(id, kyc.SandboxKeyPrefix), kyc.LiveKeyPrefix)
	id, _, _ = strings.Cut(id, ".") // never echo a secret someone pasted
	if !kyc.ValidULID(id) {
		return fmt.Errorf("%q is not a key id: give the <ulid> part of svc_test_<ulid>.<secret>", id)
	}
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	var k *kyc.APIKey
	err = s.InTx(e.ctx, func(tx *store.Tx) (err error) {
		k, err = tx.RevokeAPIKey(id)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "revoked %s (%s) at %s\n", k.ID, k.Prefix(), kyc.FormatTime(*k.RevokedAt))
	return nil
}
