// Package mailer sends the e-mails kycd queues in its outbox (portal
// links, an endpoint disabled) over SMTP, with github.com/wneessen/go-mail.
package mailer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/wneessen/go-mail"

	"kycd/invite"
	"kycd/jobs"
	"kycd/store"
)

// Config is the SMTP server to send through. An empty Host means no SMTP:
// messages stay in the outbox table (and the log says so).
type Config struct {
	Host     string
	Port     int
	Username string
	Password string
	From     string
	// TLS is starttls (default: required STARTTLS), tls (implicit TLS, as on
	// port 465) or none (plain, for a local relay).
	TLS string
}

// Mailer sends outbox messages.
type Mailer struct {
	cfg Config
	log *slog.Logger
}

// New checks cfg and returns a Mailer.
func New(cfg Config, log *slog.Logger) (*Mailer, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Host != "" && cfg.From == "" {
		return nil, fmt.Errorf("SMTP needs a sender address (--smtp-from)")
	}
	switch cfg.TLS {
	case "", "starttls", "tls", "none":
	default:
		return nil, fmt.Errorf("--smtp-tls must be starttls, tls or none")
	}
	return &Mailer{cfg: cfg, log: log}, nil
}

// Send delivers one plain-text message.
func (m *Mailer) Send(ctx context.Context, to, subject, body string) error {
	return m.SendEmail(ctx, &store.Email{To: to, Subject: subject, Body: body}, nil)
}

// SendEmail delivers an outbox message: its text body, and when it has
// one its HTML alternative (multipart/alternative) with logo, a PNG,
// inline as cid:logo.png (multipart/related). The sender is the relay's
// --smtp-from address under the message's FromName (the organization's
// name for a portal link), with its Reply-To.
func (m *Mailer) SendEmail(ctx context.Context, e *store.Email, logo []byte) error {
	msg := mail.NewMsg()
	var err error
	if e.FromName != "" {
		err = msg.FromFormat(e.FromName, m.cfg.From)
	} else {
		err = msg.From(m.cfg.From)
	}
	if err != nil {
		return jobs.Permanent(fmt.Errorf("sender address: %w", err))
	}
	if err := msg.To(e.To); err != nil {
		return jobs.Permanent(fmt.Errorf("recipient address: %w", err))
	}
	if e.ReplyTo != "" {
		if err := msg.ReplyTo(e.ReplyTo); err != nil {
			return jobs.Permanent(fmt.Errorf("reply-to address: %w", err))
		}
	}
	msg.Subject(e.Subject)
	msg.SetBodyString(mail.TypeTextPlain, e.Body)
	if e.HTML != "" {
		msg.AddAlternativeString(mail.TypeTextHTML, e.HTML)
		if logo != nil {
			if err := msg.EmbedReader(invite.LogoCID, bytes.NewReader(logo), mail.WithFileContentType(mail.ContentType("image/png")),
				mail.WithFileContentID("<"+invite.LogoCID+">")); err != nil {
				return jobs.Permanent(fmt.Errorf("embed logo: %w", err))
			}
		}
	}
	opts := []mail.Option{mail.WithTimeout(30 * time.Second)}
	switch m.cfg.TLS {
	case "none":
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	case "tls":
		opts = append(opts, mail.WithSSL())
	default:
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	}
	if m.cfg.Port != 0 {
		opts = append(opts, mail.WithPort(m.cfg.Port))
	}
	if m.cfg.Username != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(m.cfg.Username), mail.WithPassword(m.cfg.Password))
	}
	c, err := mail.NewClient(m.cfg.Host, opts...)
	if err != nil {
		return err
	}
	return c.DialAndSendWithContext(ctx, msg)
}

// MaxAge is how long an e-mail may wait in the outbox: one that could not
// be sent within it (no SMTP configured, a relay that refuses it) is given
// up, with a log line, its body emptied, counted in kycd_email_outbox
// {state="expired"}. A week is a portal link's default lifetime: a link
// e-mailed later would mostly be dead.
const MaxAge = 7 * 24 * time.Hour

// noSMTPWait is how often a message waiting for SMTP to be configured is
// looked at again (to expire it in time); a restart with SMTP sends it at
// once (Resume).
const noSMTPWait = time.Hour

// Register adds the email.send kind: up to 8 attempts, backing off from
// 30 s to an hour. Without SMTP a message waits, without using up
// attempts, until a server with SMTP sends it or it reaches MaxAge.
func (m *Mailer) Register(r *jobs.Runner, st *store.Store) {
	r.Register(jobs.Kind{Name: store.KindEmailSend, MaxAttempts: 8, Backoff: jobs.Exponential(30*time.Second, time.Hour),
		Timeout: time.Minute, Run: func(ctx context.Context, j store.Job) error {
			var p store.EmailJob
			if err := json.Unmarshal(j.Payload, &p); err != nil {
				return jobs.Permanent(err)
			}
			e, err := st.FindEmail(ctx, p.ID)
			if err != nil || e.SentAt != nil || e.ExpiredAt != nil {
				return err
			}
			now := st.Now()
			if age := now.Sub(e.CreatedAt); age > MaxAge {
				return m.expire(ctx, st, e, age)
			}
			if m.cfg.Host == "" {
				m.log.Warn("no SMTP configured: the e-mail waits in the outbox until a server with --smtp-host sends it, or expires",
					"email_id", e.ID, "subject", e.Subject, "expires_at", e.CreatedAt.Add(MaxAge).UTC().Format(time.RFC3339))
				return jobs.Defer(now.Add(noSMTPWait))
			}
			var logo []byte
			if e.LogoSHA256 != "" {
				l, err := st.FindLogo(ctx, e.LogoSHA256)
				if err != nil {
					return err
				}
				logo = l.Data
			}
			sendErr := m.SendEmail(ctx, e, logo)
			if err := st.InTx(context.WithoutCancel(ctx), func(tx *store.Tx) error { return tx.MarkEmail(e.ID, sendErr) }); err != nil {
				return err
			}
			if sendErr != nil && j.Attempt >= j.MaxAttempts {
				// The last attempt: nothing will send it, so say so now.
				return m.expire(ctx, st, e, now.Sub(e.CreatedAt))
			}
			return sendErr
		}})
}

func (m *Mailer) expire(ctx context.Context, st *store.Store, e *store.Email, age time.Duration) error {
	var expired bool
	err := st.InTx(context.WithoutCancel(ctx), func(tx *store.Tx) (err error) {
		expired, err = tx.ExpireEmail(e.ID)
		return err
	})
	if err == nil && expired {
		m.log.Warn("e-mail expired unsent: given up and its body deleted", "email_id", e.ID, "subject", e.Subject,
			"age", age.Round(time.Minute).String(), "smtp_configured", m.cfg.Host != "")
	}
	return err
}

// Resume runs at serve's start. With SMTP configured, every message still
// waiting in the outbox (queued while no SMTP was configured, or by an
// older kycd whose send job gave up without SMTP) is made due now; without
// it, the log says how many wait.
func (m *Mailer) Resume(ctx context.Context, st *store.Store) error {
	ids, queued, err := st.UnsentEmails(ctx)
	if err != nil || len(ids) == 0 {
		return err
	}
	if m.cfg.Host == "" {
		m.log.Warn("e-mails wait in the outbox for SMTP: start kycd with --smtp-host to send them (each expires a week after it was queued)",
			"count", len(ids))
		return nil
	}
	err = st.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.MakeJobsDue(store.KindEmailSend); err != nil {
			return err
		}
		for _, id := range ids {
			if queued[id] {
				continue
			}
			payload, _ := json.Marshal(store.EmailJob{ID: id})
			if _, err := tx.EnqueueJob(store.NewJob{Kind: store.KindEmailSend, Payload: payload, MaxAttempts: 8,
				DedupeKey: fmt.Sprintf("%s/%d/resume", store.KindEmailSend, id)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		m.log.Info("sending the e-mails that waited in the outbox", "count", len(ids))
	}
	return err
}
