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

// Register adds the email.send kind: up to 8 attempts, backing off from
// 30 s to an hour.
func (m *Mailer) Register(r *jobs.Runner, st *store.Store) {
	r.Register(jobs.Kind{Name: store.KindEmailSend, MaxAttempts: 8, Backoff: jobs.Exponential(30*time.Second, time.Hour),
		Timeout: time.Minute, Run: func(ctx context.Context, j store.Job) error {
			var p store.EmailJob
			if err := json.Unmarshal(j.Payload, &p); err != nil {
				return jobs.Permanent(err)
			}
			e, err := st.FindEmail(ctx, p.ID)
			if err != nil || e.SentAt != nil {
				return err
			}
			if m.cfg.Host == "" {
				m.log.Warn("no SMTP configured: the e-mail stays in the outbox table", "email_id", e.ID, "to", e.To, "subject", e.Subject)
				return nil
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
			return sendErr
		}})
}
