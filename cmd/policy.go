package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"kycd/decision"
	"kycd/kyc"
	"kycd/store"
)

// policyDryRun are the flags of kycd orgs update --policy FILE --dry-run:
// the console's policy preview, for scripts and reviews of a policy file.
type policyDryRun struct {
	DryRun    bool   `name:"dry-run" help:"With --policy: decide the environment's last 50 decided requests again under the policy in force and under the new one (from what their checks recorded), print those whose outcome would change, and save nothing."`
	DryRunEnv string `name:"dry-run-env" enum:"live,sandbox" default:"live" help:"The environment whose decided requests --dry-run uses: live or sandbox."`
}

// dryRun prints what --policy would change and writes nothing. It exits
// non-zero only when it cannot tell (a bad file, a database error).
func (c *OrgsUpdateCmd) dryRun(e *env) error {
	if c.Policy == "" {
		return errors.New("--dry-run needs --policy FILE (or --policy default)")
	}
	if c.AMLThreshold != "" || c.FourEyes != "" || c.AMLKinds != "" || c.ReviewSLALive != "" || c.ReviewSLASandbox != "" || c.brandingFlags.given() {
		return errors.New("--dry-run previews --policy only: give the other settings without it")
	}
	proposed := decision.DefaultPolicy()
	if c.Policy != "default" {
		b, err := os.ReadFile(c.Policy)
		if err != nil {
			return fmt.Errorf("--policy: %w", err)
		}
		if proposed, err = decision.ParsePolicy(b); err == nil {
			err = decision.CheckFloor(proposed)
		}
		if err != nil {
			return fmt.Errorf("--policy %s: %w", c.Policy, err)
		}
	}
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	current, err := decision.StorePolicy(s)(e.ctx, c.OrgID)
	if err != nil {
		return err
	}
	dr, err := decision.DryRunPolicy(e.ctx, s, c.OrgID, kyc.Environment(c.DryRunEnv), current, proposed)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: policy %s (in force: %s), %s: %d of the last %d decided requests change outcome", c.OrgID, proposed.Version,
		current.Version, dr.Environment, dr.Changed, dr.Compared)
	for i, m := range dr.MoveList() {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprint(e.stdout, sep+m)
	}
	fmt.Fprintln(e.stdout)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	header := false
	for _, r := range dr.Rows {
		if !r.Changed && r.Skipped == "" {
			continue
		}
		if !header {
			fmt.Fprintln(tw, "REQUEST\tSTATUS\tNOW\tPROPOSED\tREASON")
			header = true
		}
		if r.Skipped != "" {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\tskipped: %s\n", r.Request.ID, r.Request.Status, r.Skipped)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Request.ID, r.Request.Status, r.Current.Outcome, r.Proposed.Outcome, r.Proposed.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, "kycd: dry run: nothing was saved")
	return nil
}

// checkNewVersion refuses a policy that changes the one in force under
// the same version (decision.CheckNewVersion), read in the transaction
// that saves it.
func checkNewVersion(tx *store.Tx, orgID string, policy []byte) error {
	set, err := tx.FindOrgSettings(orgID)
	if err != nil {
		return err
	}
	current := decision.DefaultPolicy()
	if set.DecisionPolicy != nil {
		if current, err = decision.ParsePolicy(set.DecisionPolicy); err != nil {
			return err
		}
	}
	var proposed decision.Policy
	if err := json.Unmarshal(policy, &proposed); err != nil {
		return err
	}
	if err := decision.CheckNewVersion(current, &proposed); err != nil {
		return fmt.Errorf("--policy: %w", err)
	}
	return nil
}
