package cmd

import (
	"fmt"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// OrgsCallbackSecretCmd groups the callback secret commands.
type OrgsCallbackSecretCmd struct {
	Rotate OrgsCallbackSecretRotateCmd `cmd:"" help:"Make a new callback secret (the first one when there is none) and print it: the only time it is shown."`
}

// OrgsCallbackSecretRotateCmd rotates an organization's callback secret in
// one environment.
type OrgsCallbackSecretRotateCmd struct {
	dbFlag
	secretsFlag
	masterKeyFlag
	Org          string `required:"" env:"KYCD_ORG" help:"Organization id (org_<ulid>)."`
	Env          string `required:"" enum:"sandbox,live" env:"KYCD_ENV" help:"Environment whose callback secret to rotate."`
	OverlapHours int    `name:"overlap-hours" default:"24" help:"Hours the previous secret stays valid (0 to 168); it also signs then only with --dual-sign."`
	DualSign     *bool  `name:"dual-sign" negatable:"" help:"During the overlap, sign with the previous secret too (two sig=); default: keep the current setting (off at first)."`
}

// Run rotates the secret and prints it alone on a line.
func (c *OrgsCallbackSecretRotateCmd) Run(e *env) error {
	if c.OverlapHours < 0 || c.OverlapHours > 168 {
		return fmt.Errorf("--overlap-hours must be from 0 to 168")
	}
	if err := existingDB(c.DB); err != nil {
		return err // before a secrets key file is made for a database that is not there
	}
	box, err := c.secretsBox(c.DB, e)
	if err != nil {
		return err
	}
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	var cs *store.CallbackSecret
	err = s.InTx(e.ctx, func(tx *store.Tx) (err error) {
		if _, err := tx.FindOrgSettings(c.Org); err != nil {
			return err // NOT_FOUND for an unknown organization, before a row refers to it
		}
		cs, err = tx.RotateCallbackSecret(box, c.Org, kyc.Environment(c.Env), time.Duration(c.OverlapHours)*time.Hour, c.DualSign)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, cs.Secret)
	return nil
}
