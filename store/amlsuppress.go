package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"kycd/kyc"
)

const suppressionColumns = `id, organization_id, environment, subject_key, match_id, match_key, decision_id, check_id, fingerprint,
	created_at, lifted_at, lifted_by_type, lifted_by_id, lift_note`

// InsertSuppression stores an active suppression; its id and time are set
// here. The caller lifts any active one for the same subject and match
// first (LiftActiveSuppression): at most one is active.
func (tx *Tx) InsertSuppression(s *kyc.Suppression) error {
	s.ID, s.CreatedAt, s.LiftedAt = "sup_"+NewULID(tx.now), tx.now, nil
	_, err := tx.exec(`INSERT INTO aml_suppressions (id, organization_id, environment, subject_key, match_id, match_key, decision_id,
		check_id, fingerprint, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, s.ID, s.OrganizationID, string(s.Environment),
		s.SubjectKey, s.MatchID, s.MatchKey, s.DecisionID, s.CheckID, s.Fingerprint, kyc.FormatTime(tx.now))
	if err != nil {
		return fmt.Errorf("insert suppression: %w", err)
	}
	return nil
}

// ActiveSuppressions returns the suppressions in force for a subject.
func (tx *Tx) ActiveSuppressions(orgID string, env kyc.Environment, subjectKey string) ([]kyc.Suppression, error) {
	rows, err := tx.q.QueryContext(context.Background(), `SELECT `+suppressionColumns+` FROM aml_suppressions
		WHERE organization_id = ? AND environment = ? AND subject_key = ? AND lifted_at IS NULL ORDER BY id`,
		orgID, string(env), subjectKey)
	if err != nil {
		return nil, fmt.Errorf("find suppressions: %w", err)
	}
	defer rows.Close()
	var out []kyc.Suppression
	for rows.Next() {
		s, err := scanSuppression(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *s)
	}
	return out, rows.Err()
}

// FindSuppression returns one suppression of the organization in env:
// NOT_FOUND when it is not the organization's, wrong_environment in its
// other environment.
func (s *Store) FindSuppression(ctx context.Context, orgID string, env kyc.Environment, id string) (*kyc.Suppression, error) {
	return findSuppression(ctx, readPool{s.readStmts}, orgID, env, id)
}

// FindSuppression is Store.FindSuppression inside the write transaction.
func (tx *Tx) FindSuppression(orgID string, env kyc.Environment, id string) (*kyc.Suppression, error) {
	return findSuppression(context.Background(), tx.q, orgID, env, id)
}

func findSuppression(ctx context.Context, q queryer, orgID string, env kyc.Environment, id string) (*kyc.Suppression, error) {
	// Refused before SQL: anything but sup_<ulid> cannot name one.
	if kind, _ := kyc.ClassifyID("sup_", id); kind != kyc.IDInternal {
		return nil, kyc.Errorf(kyc.ENotFound, "Suppression %s not found.", id)
	}
	s, err := scanSuppression(q.QueryRowContext(ctx, `SELECT `+suppressionColumns+` FROM aml_suppressions
		WHERE id = ? AND organization_id = ?`, id, orgID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "Suppression %s not found.", id)
	}
	if err != nil {
		return nil, err
	}
	if s.Environment != env {
		return nil, wrongEnvironment("Suppression", id, s.Environment, env)
	}
	return s, nil
}

// LiftSuppression ends a suppression; it reports false when it had ended
// already (nothing is written then).
func (tx *Tx) LiftSuppression(id string, actorType kyc.ActorType, actorID, note string) (bool, error) {
	res, err := tx.exec(`UPDATE aml_suppressions SET lifted_at = ?, lifted_by_type = ?, lifted_by_id = ?, lift_note = ?
		WHERE id = ? AND lifted_at IS NULL`, kyc.FormatTime(tx.now), string(actorType), actorID, note, id)
	if err != nil {
		return false, fmt.Errorf("lift suppression: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("lift suppression: %w", err)
	}
	return n == 1, nil
}

func scanSuppression(row scanner) (*kyc.Suppression, error) {
	var s kyc.Suppression
	var env, created string
	var lifted, liftedType, liftedBy, note sql.NullString
	if err := row.Scan(&s.ID, &s.OrganizationID, &env, &s.SubjectKey, &s.MatchID, &s.MatchKey, &s.DecisionID, &s.CheckID,
		&s.Fingerprint, &created, &lifted, &liftedType, &liftedBy, &note); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("scan suppression: %w", err)
	}
	s.Environment, s.CreatedAt = kyc.Environment(env), parseTime(created)
	if lifted.Valid {
		t := parseTime(lifted.String)
		s.LiftedAt = &t
		at, by, n := kyc.ActorType(liftedType.String), liftedBy.String, note.String
		s.LiftedByType, s.LiftedByID, s.LiftNote = &at, &by, &n
	}
	return &s, nil
}
