package store

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"kycd/kyc"
)

// QueueEmailMessage puts m (To, Subject, Body and the optional HTML,
// FromName, ReplyTo and LogoSHA256) in the e-mail outbox and, in the same
// transaction, the job that sends it: the message leaves only if the
// change that caused it commits.
//
// Both bodies are sealed with the data key, bound to the row (they carry
// portal links), and emptied once the message is sent or expires.
func (tx *Tx) QueueEmailMessage(orgID string, m Email) error {
	if tx.keys == nil {
		return fmt.Errorf("queue e-mail: %w", ErrNoMasterKey)
	}
	// RETURNING, not LastInsertId: PostgreSQL's driver has none.
	var id int64
	err := tx.queryRow(`INSERT INTO email_outbox (organization_id, to_address, subject, body, created_at, from_name,
		reply_to, logo_sha256) VALUES (?, ?, ?, '', ?, ?, ?, ?) RETURNING id`,
		nullString(orgID), m.To, m.Subject, kyc.FormatTime(tx.now), nullString(m.FromName),
		nullString(m.ReplyTo), nullString(m.LogoSHA256)).Scan(&id)
	if err != nil {
		return fmt.Errorf("queue e-mail: %w", formatError(err))
	}
	keyID, body, err := tx.keys.seal([]byte(m.Body), emailAAD(id))
	if err != nil {
		return fmt.Errorf("queue e-mail: %w", err)
	}
	var html any
	if m.HTML != "" {
		_, sealed, err := tx.keys.seal([]byte(m.HTML), emailHTMLAAD(id))
		if err != nil {
			return fmt.Errorf("queue e-mail: %w", err)
		}
		html = base64.StdEncoding.EncodeToString(sealed)
	}
	if _, err := tx.exec(`UPDATE email_outbox SET body = ?, html_body = ?, body_key_id = ? WHERE id = ?`,
		base64.StdEncoding.EncodeToString(body), html, keyID, id); err != nil {
		return fmt.Errorf("queue e-mail: %w", err)
	}
	payload, _ := json.Marshal(EmailJob{ID: id})
	_, err = tx.EnqueueJob(NewJob{Kind: KindEmailSend, Payload: payload, MaxAttempts: 8})
	return err
}

func emailAAD(id int64) string     { return "email_outbox " + strconv.FormatInt(id, 10) }
func emailHTMLAAD(id int64) string { return "email_outbox " + strconv.FormatInt(id, 10) + " html" }
