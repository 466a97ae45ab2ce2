package store

import (
	"encoding/json"
	"fmt"

	"kycd/kyc"
)

// QueueEmailMessage puts m (To, Subject, Body and the optional HTML,
// FromName, ReplyTo and LogoSHA256) in the e-mail outbox and, in the same
// transaction, the job that sends it: the message leaves only if the
// change that caused it commits.
func (tx *Tx) QueueEmailMessage(orgID string, m Email) error {
	res, err := tx.exec(`INSERT INTO email_outbox (organization_id, to_address, subject, body, created_at, html_body, from_name,
		reply_to, logo_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		nullString(orgID), m.To, m.Subject, m.Body, kyc.FormatTime(tx.now), nullString(m.HTML), nullString(m.FromName),
		nullString(m.ReplyTo), nullString(m.LogoSHA256))
	if err != nil {
		return fmt.Errorf("queue e-mail: %w", err)
	}
	id, _ := res.LastInsertId()
	payload, _ := json.Marshal(EmailJob{ID: id})
	_, err = tx.EnqueueJob(NewJob{Kind: KindEmailSend, Payload: payload, MaxAttempts: 8})
	return err
}
