package store

import (
	"context"
	"encoding/json"
	"fmt"

	"kycd/kyc"
)

// InsertMatchDecision stores a decision on a match; ids and time are set
// here.
func (tx *Tx) InsertMatchDecision(d *kyc.MatchDecisionRecord) error {
	d.ID, d.CreatedAt = "amd_"+NewULID(tx.now), tx.now
	entity, err := json.Marshal(d.Entity)
	if err != nil {
		return fmt.Errorf("encode entity: %w", err)
	}
	_, err = tx.exec(`INSERT INTO aml_match_decisions (id, check_id, match_id, match_key, decision, note, entity, actor_type, actor_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, d.ID, d.CheckID, d.MatchID, d.MatchKey, string(d.Decision), d.Note, string(entity),
		string(d.ActorType), d.ActorID, kyc.FormatTime(tx.now))
	if err != nil {
		return fmt.Errorf("insert match decision: %w", err)
	}
	return nil
}

// FindMatchDecisions returns every decision on a check's matches, oldest
// first.
func (s *Store) FindMatchDecisions(ctx context.Context, checkID string) ([]kyc.MatchDecisionRecord, error) {
	return findMatchDecisions(ctx, readPool{s.readStmts}, checkID)
}

// FindMatchDecisions is Store.FindMatchDecisions inside the write
// transaction.
func (tx *Tx) FindMatchDecisions(checkID string) ([]kyc.MatchDecisionRecord, error) {
	return findMatchDecisions(context.Background(), tx.q, checkID)
}

func findMatchDecisions(ctx context.Context, q queryer, checkID string) ([]kyc.MatchDecisionRecord, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, check_id, match_id, match_key, decision, note, entity, actor_type, actor_id, created_at
		FROM aml_match_decisions WHERE check_id = ? ORDER BY id`, checkID)
	if err != nil {
		return nil, fmt.Errorf("find match decisions: %w", err)
	}
	defer rows.Close()
	var out []kyc.MatchDecisionRecord
	for rows.Next() {
		var d kyc.MatchDecisionRecord
		var decision, entity, actor, created string
		if err := rows.Scan(&d.ID, &d.CheckID, &d.MatchID, &d.MatchKey, &decision, &d.Note, &entity, &actor, &d.ActorID, &created); err != nil {
			return nil, fmt.Errorf("scan match decision: %w", err)
		}
		d.Decision, d.ActorType, d.CreatedAt = kyc.MatchDecision(decision), kyc.ActorType(actor), parseTime(created)
		if err := json.Unmarshal([]byte(entity), &d.Entity); err != nil {
			return nil, fmt.Errorf("decode match decision entity: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// SetAMLReview stores a check's review status; resolved_at is set when it
// becomes resolved and cleared when it is not.
func (tx *Tx) SetAMLReview(c *kyc.AMLCheck) error {
	if c.ReviewStatus == kyc.AMLReviewResolved {
		if c.ResolvedAt == nil {
			now := tx.now
			c.ResolvedAt = &now
		}
	} else {
		c.ResolvedAt = nil
	}
	c.UpdatedAt = tx.now
	if _, err := tx.exec(`UPDATE aml_checks SET review_status = ?, resolved_at = ?, updated_at = ? WHERE id = ?`,
		string(c.ReviewStatus), timeOrNil(c.ResolvedAt), kyc.FormatTime(tx.now), c.ID); err != nil {
		return fmt.Errorf("set aml review: %w", err)
	}
	return nil
}
