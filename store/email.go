package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

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

// KindEmailSend is the job that sends one outbox message.
const KindEmailSend = "email.send"

// EmailJob is the payload of an email.send job.
type EmailJob struct {
	ID int64 `json:"id"`
}

// An e-mail's bodies (a portal link is the applicant's credential) are
// sealed with the data key, bound to their row, while the message waits in
// the outbox, and emptied once it is sent or expires: the outbox keeps who
// was written to, about what and when, not what was said (email.go).

// QueueEmail puts a plain-text message in the e-mail outbox and, in the
// same transaction, the job that sends it.
func (tx *Tx) QueueEmail(orgID, to, subject, body string) error {
	return tx.QueueEmailMessage(orgID, Email{To: to, Subject: subject, Body: body})
}

// FindEmail returns one outbox message, its body opened ("" once sent or
// expired).
func (s *Store) FindEmail(ctx context.Context, id int64) (*Email, error) {
	var m Email
	var created string
	var sent, expired sql.NullString
	var html, fromName, replyTo, logo sql.NullString
	var keyID sql.NullInt64
	err := s.reader.QueryRowContext(ctx, `SELECT id, to_address, subject, body, body_key_id, created_at, sent_at, expired_at, html_body,
		from_name, reply_to, logo_sha256 FROM email_outbox WHERE id = ?`, id).
		Scan(&m.ID, &m.To, &m.Subject, &m.Body, &keyID, &created, &sent, &expired, &html, &fromName, &replyTo, &logo)
	if err != nil {
		return nil, fmt.Errorf("find e-mail %d: %w", id, err)
	}
	m.HTML, m.FromName, m.ReplyTo, m.LogoSHA256 = html.String, fromName.String, replyTo.String, logo.String
	if keyID.Valid { // NULL: stored in clear by an older kycd (or emptied)
		if m.Body != "" {
			if m.Body, err = s.keys.openText(keyID.Int64, m.Body, emailAAD(id)); err != nil {
				return nil, fmt.Errorf("find e-mail %d: %w", id, err)
			}
		}
		if m.HTML != "" {
			if m.HTML, err = s.keys.openText(keyID.Int64, m.HTML, emailHTMLAAD(id)); err != nil {
				return nil, fmt.Errorf("find e-mail %d: %w", id, err)
			}
		}
	}
	m.CreatedAt, m.SentAt, m.ExpiredAt = parseTime(created), optTime(sent), optTime(expired)
	return &m, nil
}

// MarkEmail records a send: sent when sendErr is nil (the body is emptied:
// it served its purpose), else its error.
func (tx *Tx) MarkEmail(id int64, sendErr error) error {
	var err error
	if sendErr == nil {
		_, err = tx.exec(`UPDATE email_outbox SET sent_at = ?, error = NULL, body = '', html_body = NULL, body_key_id = NULL WHERE id = ?`,
			kyc.FormatTime(tx.now), id)
	} else {
		_, err = tx.exec(`UPDATE email_outbox SET error = ? WHERE id = ?`, sendErr.Error(), id)
	}
	return err
}

// ExpireEmail gives up an unsent message: expired_at is set and the body
// emptied. It reports whether the message was still waiting.
func (tx *Tx) ExpireEmail(id int64) (bool, error) {
	res, err := tx.exec(`UPDATE email_outbox SET expired_at = ?, body = '', html_body = NULL, body_key_id = NULL
		WHERE id = ? AND sent_at IS NULL AND expired_at IS NULL`, kyc.FormatTime(tx.now), id)
	if err != nil {
		return false, fmt.Errorf("expire e-mail %d: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// Email is a message of the outbox.
type Email struct {
	ID      int64
	To      string
	Subject string
	Body    string // text/plain; "" once sent or expired
	// HTML is the text/html alternative of Body, "" for none (and once
	// sent or expired). LogoSHA256 names the organization logo it shows
	// inline (as cid:logo), "" for none.
	HTML       string
	FromName   string // the sender's display name; the address is the relay's --smtp-from
	ReplyTo    string
	LogoSHA256 string
	CreatedAt  time.Time
	SentAt     *time.Time
	ExpiredAt  *time.Time
}

// FindEmails lists the outbox, oldest first, bodies opened.
func (s *Store) FindEmails(ctx context.Context) ([]Email, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id FROM email_outbox ORDER BY id`)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Email, 0, len(ids))
	for _, id := range ids {
		m, err := s.FindEmail(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, *m)
	}
	return out, nil
}

// UnsentEmails returns the ids of the messages neither sent nor expired,
// oldest first, with whether a send job is still queued for each.
func (s *Store) UnsentEmails(ctx context.Context) (ids []int64, queued map[int64]bool, err error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT e.id, EXISTS (SELECT 1 FROM jobs j WHERE j.kind = ? AND j.state IN ('pending', 'running')
			AND `+s.eng.jsonInt("j.payload", "id")+` = e.id)
		FROM email_outbox e WHERE e.sent_at IS NULL AND e.expired_at IS NULL ORDER BY e.id`, KindEmailSend)
	if err != nil {
		return nil, nil, fmt.Errorf("find unsent e-mails: %w", err)
	}
	defer rows.Close()
	queued = map[int64]bool{}
	for rows.Next() {
		var id int64
		var q bool
		if err := rows.Scan(&id, &q); err != nil {
			return nil, nil, fmt.Errorf("find unsent e-mails: %w", err)
		}
		ids = append(ids, id)
		queued[id] = q
	}
	return ids, queued, rows.Err()
}

// EmailCounts counts the outbox by state: queued, sent, expired.
func (s *Store) EmailCounts(ctx context.Context) (map[string]int, error) {
	var queued, sent, expired int
	err := s.reader.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE sent_at IS NULL AND expired_at IS NULL),
		count(*) FILTER (WHERE sent_at IS NOT NULL), count(*) FILTER (WHERE expired_at IS NOT NULL) FROM email_outbox`).
		Scan(&queued, &sent, &expired)
	if err != nil {
		return nil, fmt.Errorf("count e-mails: %w", err)
	}
	return map[string]int{"queued": queued, "sent": sent, "expired": expired}, nil
}
