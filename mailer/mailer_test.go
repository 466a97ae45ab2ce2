package mailer_test

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"kycd/branding"
	"kycd/internal/smtptest"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/mailer"
	"kycd/store"
	"kycd/store/storetest"
)

func TestOutboxIsSent(t *testing.T) {
	srv := smtptest.New(t)
	st, clock := storetest.Open(t), &storetest.Clock{}
	st.Now = clock.Now
	org := storetest.MustOrg(t, st, "mail", nil)
	port := srv.Port()
	m, err := mailer.New(mailer.Config{Host: "127.0.0.1", Port: port, From: "kycd@example.com", TLS: "none"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := jobs.New(jobs.Options{Store: st, Now: clock.Now})
	m.Register(r, st)
	err = st.InTx(t.Context(), func(tx *store.Tx) error {
		return tx.QueueEmail(org.ID, "compliance@mail.example", "kycd: webhook endpoint disabled", "Zoë's endpoint failed.\n")
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.RunOnce(t.Context()); err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v", n, err)
	}
	msgs, rcpt := srv.Messages(), srv.Recipients()
	if len(msgs) != 1 || !strings.Contains(msgs[0], "Subject: kycd: webhook endpoint disabled") ||
		len(rcpt) != 1 || !strings.Contains(rcpt[0], "compliance@mail.example") {
		t.Fatalf("relay got %d messages to %v: %q", len(msgs), rcpt, msgs)
	}
	mails, _ := st.FindEmails(t.Context())
	if sent, _ := st.FindEmail(t.Context(), mails[0].ID); sent.SentAt == nil {
		t.Error("the outbox row is not marked sent")
	}
}

func TestNoSMTPKeepsOutbox(t *testing.T) {
	st := storetest.Open(t)
	org := storetest.MustOrg(t, st, "nomail", nil)
	m, _ := mailer.New(mailer.Config{}, nil)
	r := jobs.New(jobs.Options{Store: st})
	m.Register(r, st)
	if err := st.InTx(t.Context(), func(tx *store.Tx) error { return tx.QueueEmail(org.ID, "a@b.example", "s", "b") }); err != nil {
		t.Fatal(err)
	}
	if _, err := r.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	mails, _ := st.FindEmails(t.Context())
	if len(mails) != 1 {
		t.Fatalf("outbox: %+v", mails)
	}
	if e, _ := st.FindEmail(t.Context(), mails[0].ID); e.SentAt != nil {
		t.Error("marked sent without SMTP")
	}
	if _, err := mailer.New(mailer.Config{Host: "smtp.example", TLS: "maybe", From: "x@y.example"}, nil); err == nil {
		t.Error("a bad --smtp-tls was accepted")
	}
}

// TestOutboxWaitsForSMTP: an e-mail queued while no SMTP is configured is
// sent by the first server started with SMTP (issue #9: its job finished
// without sending and nothing ever sent it), and its body is then gone.
func TestOutboxWaitsForSMTP(t *testing.T) {
	st, clock := storetest.Open(t), &storetest.Clock{}
	st.Now = clock.Now
	org := storetest.MustOrg(t, st, "later", nil)
	noSMTP, _ := mailer.New(mailer.Config{}, nil)
	r := jobs.New(jobs.Options{Store: st, Now: clock.Now})
	noSMTP.Register(r, st)
	if err := st.InTx(t.Context(), func(tx *store.Tx) error {
		return tx.QueueEmail(org.ID, "ada@example.com", "Verify your identity", "Open https://kyc.example/portal/secret-token\n")
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Hour)
	if _, err := r.RunOnce(t.Context()); err != nil { // still waiting, no attempt used up
		t.Fatal(err)
	}
	if err := noSMTP.Resume(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	mails, _ := st.FindEmails(t.Context())
	if len(mails) != 1 || mails[0].SentAt != nil || mails[0].ExpiredAt != nil || !strings.Contains(mails[0].Body, "secret-token") {
		t.Fatalf("outbox without SMTP: %+v", mails)
	}

	// A restart with SMTP sends it at once, not at the next hourly look.
	srv := smtptest.New(t)
	withSMTP, err := mailer.New(mailer.Config{Host: "127.0.0.1", Port: srv.Port(), From: "kycd@example.com", TLS: "none"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r = jobs.New(jobs.Options{Store: st, Now: clock.Now})
	withSMTP.Register(r, st)
	if err := withSMTP.Resume(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	if n, err := r.RunOnce(t.Context()); err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v", n, err)
	}
	got := srv.Messages()
	if len(got) != 1 || !strings.Contains(got[0], "secret-token") {
		t.Fatalf("relay got %q", got)
	}
	sent, err := st.FindEmail(t.Context(), mails[0].ID)
	if err != nil || sent.SentAt == nil || sent.Body != "" {
		t.Fatalf("after sending: %+v %v, want sent with the body emptied", sent, err)
	}
}

// TestOutboxExpires: a message that cannot be sent within a week is given
// up, with its body deleted, and counted.
func TestOutboxExpires(t *testing.T) {
	st, clock := storetest.Open(t), &storetest.Clock{}
	st.Now = clock.Now
	org := storetest.MustOrg(t, st, "never", nil)
	m, _ := mailer.New(mailer.Config{}, nil)
	r := jobs.New(jobs.Options{Store: st, Now: clock.Now})
	m.Register(r, st)
	if err := st.InTx(t.Context(), func(tx *store.Tx) error { return tx.QueueEmail(org.ID, "a@b.example", "s", "token-xyz") }); err != nil {
		t.Fatal(err)
	}
	for range 8 * 24 { // hourly looks for eight days
		if _, err := r.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
	}
	mails, _ := st.FindEmails(t.Context())
	if len(mails) != 1 || mails[0].ExpiredAt == nil || mails[0].SentAt != nil || mails[0].Body != "" {
		t.Fatalf("after eight days: %+v", mails)
	}
	if c, err := st.EmailCounts(t.Context()); err != nil || c["expired"] != 1 || c["queued"] != 0 {
		t.Fatalf("counts %v %v", c, err)
	}
}

// TestHTMLEmailWithLogo sends a portal-link e-mail as the relay sees it:
// text and HTML alternatives, the PNG logo inline under the Content-ID
// the HTML shows, from the organization's name, Reply-To its support.
func TestHTMLEmailWithLogo(t *testing.T) {
	srv := smtptest.New(t)
	st := storetest.Open(t)
	org := storetest.MustOrg(t, st, "brand", nil)
	logo, _, err := branding.ProcessLogo(pngLogo(t))
	if err != nil {
		t.Fatal(err)
	}
	err = st.InTx(t.Context(), func(tx *store.Tx) error {
		name := "Acme Bank"
		if _, err := tx.UpdateBranding(org.ID, kyc.BrandingUpdate{DisplayName: &name}, logo, false, kyc.ActorOperator, "test"); err != nil {
			return err
		}
		return tx.QueueEmailMessage(org.ID, store.Email{To: "ada@example.com", Subject: "Acme Bank: please verify your identity",
			Body: "Hello Ada,\n", HTML: `<p>Hello Ada,</p><img src="cid:logo.png" alt="">`, FromName: "Acme Bank",
			ReplyTo: "help@acme.example", LogoSHA256: logo.SHA256})
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := mailer.New(mailer.Config{Host: "127.0.0.1", Port: srv.Port(), From: "kycd@example.com", TLS: "none"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := jobs.New(jobs.Options{Store: st})
	m.Register(r, st)
	if n, err := r.RunOnce(t.Context()); err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v", n, err)
	}
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("relay got %d messages", len(msgs))
	}
	msg := msgs[0]
	for _, want := range []string{`From: "Acme Bank" <kycd@example.com>`, "Reply-To: <help@acme.example>", "multipart/alternative",
		"multipart/related", "Content-Type: text/plain", "Content-Type: text/html", "Content-Id: <logo.png>", "Content-Type: image/png"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

func pngLogo(t *testing.T) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 64, 32))
	for i := range img.Pix {
		img.Pix[i] = byte(i)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
