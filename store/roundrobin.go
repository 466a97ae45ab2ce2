package store

import (
	"database/sql"
	"errors"
	"fmt"

	"kycd/kyc"
)

// SetRoundRobin turns round-robin assignment on or off for the
// organization (both environments).
func (tx *Tx) SetRoundRobin(orgID string, on bool) error {
	if err := tx.updateOrg(`UPDATE organizations SET review_round_robin = ? WHERE id = ?`, boolInt(on), orgID); err != nil {
		return err
	}
	return tx.auditOperatorAction(orgID, "", "organization", orgID, "organization.round_robin_changed",
		"round-robin assignment: "+map[bool]string{true: "on", false: "off"}[on])
}

// SetReviewAvailable says whether the user is in (takes round-robin
// cases) or out. The user sets it on themselves; the audit row names
// them. Setting what is already set changes nothing and writes no row.
func (tx *Tx) SetReviewAvailable(orgID, userID string, in bool) error {
	res, err := tx.exec(`UPDATE users SET review_available = ?, updated_at = ? WHERE id = ? AND organization_id = ? AND review_available <> ?`,
		boolInt(in), kyc.FormatTime(tx.now), userID, orgID, boolInt(in))
	if err != nil {
		return fmt.Errorf("set review availability: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	return tx.auditChange(orgID, "", "user", userID, "user.review_availability_changed", nil, map[bool]string{true: "in", false: "out"}[in], "")
}

// NextRoundRobin picks whose turn it is among the organization's
// reviewers who are in (active users who may decide: admins and
// reviewers): the first, in a fixed order (user id), after the one last
// given a case, wrapping round. It records the pick as the last one and
// returns it; "" when nobody is in. A reviewer who goes out leaves the
// rotation at once and, back in, rejoins at their place in the order.
func (tx *Tx) NextRoundRobin(orgID string) (string, error) {
	var last sql.NullString
	if err := tx.queryRow(`SELECT review_round_robin_last FROM organizations WHERE id = ?`, orgID).Scan(&last); err != nil {
		return "", fmt.Errorf("round robin: %w", err)
	}
	const eligible = `SELECT id FROM users WHERE organization_id = ? AND review_available = 1 AND disabled_at IS NULL
		AND role IN ('admin', 'reviewer')`
	var next string
	err := tx.queryRow(eligible+` AND id > ? ORDER BY id LIMIT 1`, orgID, last.String).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		err = tx.queryRow(eligible+` ORDER BY id LIMIT 1`, orgID).Scan(&next) // wrap round
	}
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("round robin: %w", err)
	}
	if err := tx.updateOrg(`UPDATE organizations SET review_round_robin_last = ? WHERE id = ?`, next, orgID); err != nil {
		return "", err
	}
	return next, nil
}
