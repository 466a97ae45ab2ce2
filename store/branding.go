package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"kycd/kyc"
)

const brandingColumns = `o.name, o.display_name, o.support_email, o.privacy_url, o.brand_color, o.default_locale,
	l.sha256, l.content_type, l.width, l.height`

const brandingFrom = ` FROM organizations o LEFT JOIN organization_logos l ON l.sha256 = o.logo_sha256 WHERE o.id = ?`

// FindBranding returns the organization's branding, its logo without the
// image bytes (FindLogo serves them). NOT_FOUND for an unknown id.
func (s *Store) FindBranding(ctx context.Context, orgID string) (*kyc.Branding, error) {
	return findBranding(ctx, readPool{s.readStmts}, orgID)
}

// FindBranding inside the write transaction.
func (tx *Tx) FindBranding(orgID string) (*kyc.Branding, error) {
	return findBranding(context.Background(), tx.q, orgID)
}

func findBranding(ctx context.Context, q queryer, orgID string) (*kyc.Branding, error) {
	var b kyc.Branding
	var display, support, privacy, color, loc, sha, ct sql.NullString
	var w, h sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT `+brandingColumns+brandingFrom, orgID).
		Scan(&b.Name, &display, &support, &privacy, &color, &loc, &sha, &ct, &w, &h)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "Organization %s not found.", orgID)
	}
	if err != nil {
		return nil, fmt.Errorf("find branding: %w", err)
	}
	b.DisplayName, b.SupportEmail, b.PrivacyURL, b.BrandColor, b.DefaultLocale = display.String, support.String,
		privacy.String, color.String, loc.String
	if sha.Valid {
		b.Logo = &kyc.Logo{SHA256: sha.String, ContentType: ct.String, Width: int(w.Int64), Height: int(h.Int64)}
	}
	return &b, nil
}

// UpdateBranding applies a validated update and the logo change (logo nil
// keeps the logo; removeLogo clears it), writing one audit row that names
// every field changed and its new value. It returns the new branding.
// actorID says who made the change (the operator, later a console user).
// NOT_FOUND for an unknown organization.
func (tx *Tx) UpdateBranding(orgID string, u kyc.BrandingUpdate, logo *kyc.Logo, removeLogo bool, actor kyc.ActorType, actorID string) (*kyc.Branding, error) {
	old, err := tx.FindBranding(orgID)
	if err != nil {
		return nil, err
	}
	var changed []string
	set := func(col, field string, v *string, was string) error {
		if v == nil || *v == was {
			return nil
		}
		if err := tx.updateOrg(`UPDATE organizations SET `+col+` = ? WHERE id = ?`, nullString(*v), orgID); err != nil {
			return err
		}
		shown := *v
		if shown == "" {
			shown = "(none)"
		}
		changed = append(changed, field+"="+shown)
		return nil
	}
	for _, f := range []struct {
		col, field string
		v          *string
		was        string
	}{
		{"display_name", "displayName", u.DisplayName, old.DisplayName},
		{"support_email", "supportEmail", u.SupportEmail, old.SupportEmail},
		{"privacy_url", "privacyUrl", u.PrivacyURL, old.PrivacyURL},
		{"brand_color", "brandColor", u.BrandColor, old.BrandColor},
		{"default_locale", "defaultLocale", u.DefaultLocale, old.DefaultLocale},
	} {
		if err := set(f.col, f.field, f.v, f.was); err != nil {
			return nil, err
		}
	}
	switch {
	case logo != nil && (old.Logo == nil || old.Logo.SHA256 != logo.SHA256):
		if _, err := tx.exec(`INSERT INTO organization_logos (sha256, content_type, width, height, data, created_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
			logo.SHA256, logo.ContentType, logo.Width, logo.Height, logo.Data, kyc.FormatTime(tx.now)); err != nil {
			return nil, fmt.Errorf("insert logo: %w", err)
		}
		if err := tx.updateOrg(`UPDATE organizations SET logo_sha256 = ? WHERE id = ?`, logo.SHA256, orgID); err != nil {
			return nil, err
		}
		changed = append(changed, fmt.Sprintf("logo=%s %dx%d sha256:%s", logo.ContentType, logo.Width, logo.Height, logo.SHA256))
	case removeLogo && old.Logo != nil:
		if err := tx.updateOrg(`UPDATE organizations SET logo_sha256 = ? WHERE id = ?`, nil, orgID); err != nil {
			return nil, err
		}
		changed = append(changed, "logo=(none)")
	}
	if len(changed) > 0 {
		// Branding is one setting for both environments; the audit log is
		// where live changes are kept, so it is recorded there.
		reason := strings.Join(changed, "; ")
		var id *string
		if actorID != "" {
			id = &actorID
		}
		if err := tx.AppendAudit(AuditEntry{OrganizationID: orgID, Environment: kyc.Live, ResourceType: "organization",
			ResourceID: orgID, Action: "organization.branding_updated", ActorType: actor, ActorID: id, Reason: &reason}); err != nil {
			return nil, err
		}
	}
	return tx.FindBranding(orgID)
}

// FindLogo returns a stored logo with its bytes by its hash. NOT_FOUND
// when there is none.
func (s *Store) FindLogo(ctx context.Context, sha256 string) (*kyc.Logo, error) {
	l := kyc.Logo{SHA256: sha256}
	err := s.reader.QueryRowContext(ctx, `SELECT content_type, width, height, data FROM organization_logos WHERE sha256 = ?`, sha256).
		Scan(&l.ContentType, &l.Width, &l.Height, &l.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "Logo not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("find logo: %w", err)
	}
	return &l, nil
}
