-- Secrets at rest (store/idempotency.go, store/email.go). A stored
-- idempotent response can carry a webhook secret or a portal link, and an
-- e-mail a portal link: both are now sealed (AES-256-GCM under the data
-- key, bound to their row; an e-mail's body and html_body both) and an
-- e-mail's bodies are emptied once it is sent or expires. NULL key ids mark values stored in clear by an older kycd;
-- the first start with the master key seals them (EncryptPlaintext).
ALTER TABLE idempotency_keys ADD COLUMN response_key_id INTEGER REFERENCES data_keys (id);
ALTER TABLE email_outbox ADD COLUMN body_key_id INTEGER REFERENCES data_keys (id);
-- When an e-mail was given up unsent (too old to be useful); its body is gone.
ALTER TABLE email_outbox ADD COLUMN expired_at TEXT;
