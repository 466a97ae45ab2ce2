package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"kycd/kyc"
)

// Tags and comments on a case (case_tags, case_comments): rows name their
// subject by type and id, so that another kind of case can reuse them.
// The callers check that the subject exists in the organization and
// environment, and write the audit rows.

// AddTag tags a subject; false when it had the tag already. A subject has
// at most kyc.MaxTags tags.
func (tx *Tx) AddTag(orgID string, env kyc.Environment, typ kyc.SubjectType, subjectID, tag string) (bool, error) {
	var n int
	if err := tx.queryRow(`SELECT count(*) FROM case_tags WHERE subject_id = ? AND organization_id = ? AND environment = ? AND subject_type = ?`,
		subjectID, orgID, string(env), string(typ)).Scan(&n); err != nil {
		return false, fmt.Errorf("count tags: %w", err)
	}
	res, err := tx.exec(`INSERT INTO case_tags (organization_id, environment, subject_type, subject_id, tag, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, orgID, string(env), string(typ), subjectID, tag, kyc.FormatTime(tx.now))
	if err != nil {
		return false, fmt.Errorf("add tag: %w", err)
	}
	added, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("add tag: %w", err)
	}
	if added > 0 && n >= kyc.MaxTags {
		// Refused after the insert so that re-adding an existing tag to a
		// full case stays a no-op; the caller's transaction rolls back.
		return false, kyc.Invalid(kyc.FieldError{Field: "tag", Message: fmt.Sprintf("a case has at most %d tags: remove one first", kyc.MaxTags)})
	}
	return added > 0, nil
}

// RemoveTag removes a subject's tag; false when it did not have it.
func (tx *Tx) RemoveTag(orgID string, env kyc.Environment, typ kyc.SubjectType, subjectID, tag string) (bool, error) {
	res, err := tx.exec(`DELETE FROM case_tags WHERE organization_id = ? AND environment = ? AND subject_type = ? AND tag = ? AND subject_id = ?`,
		orgID, string(env), string(typ), tag, subjectID)
	if err != nil {
		return false, fmt.Errorf("remove tag: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("remove tag: %w", err)
	}
	return n > 0, nil
}

const tagsQuery = `SELECT tag FROM case_tags WHERE subject_id = ? AND organization_id = ? AND environment = ? AND subject_type = ? ORDER BY tag`

// FindTags returns a subject's tags, in alphabetical order.
func (s *Store) FindTags(ctx context.Context, orgID string, env kyc.Environment, typ kyc.SubjectType, subjectID string) ([]string, error) {
	return collectStrings(s.reader.QueryContext(ctx, tagsQuery, subjectID, orgID, string(env), string(typ)))
}

// FindTags returns a subject's tags within the transaction.
func (tx *Tx) FindTags(orgID string, env kyc.Environment, typ kyc.SubjectType, subjectID string) ([]string, error) {
	return collectStrings(tx.q.QueryContext(context.Background(), tagsQuery, subjectID, orgID, string(env), string(typ)))
}

// FindUsedTags returns the tags the environment's subjects of one type
// carry (at most 500, alphabetical), for the lists' tag filter.
func (s *Store) FindUsedTags(ctx context.Context, orgID string, env kyc.Environment, typ kyc.SubjectType) ([]string, error) {
	return collectStrings(s.reader.QueryContext(ctx, `SELECT DISTINCT tag FROM case_tags WHERE organization_id = ? AND environment = ? AND subject_type = ?
		ORDER BY tag LIMIT 500`, orgID, string(env), string(typ)))
}

func collectStrings(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, fmt.Errorf("find tags: %w", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, fmt.Errorf("scan tag: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// CreateComment stores a comment; it sets c.ID and c.CreatedAt.
func (tx *Tx) CreateComment(orgID string, env kyc.Environment, c *kyc.Comment) error {
	c.ID, c.CreatedAt = "cmt_"+NewULID(tx.now), tx.now
	if _, err := tx.exec(`INSERT INTO case_comments (id, organization_id, environment, subject_type, subject_id, author_type, author_id,
		author_name, body, mentions, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, orgID, string(env), string(c.SubjectType), c.SubjectID, string(c.AuthorType), c.AuthorID, c.AuthorName, c.Body,
		strings.Join(c.Mentions, " "), kyc.FormatTime(c.CreatedAt)); err != nil {
		return fmt.Errorf("create comment: %w", err)
	}
	return nil
}

// MaxComments bounds one thread as returned (oldest first): a case with
// more shows its first MaxComments.
const MaxComments = 500

// FindComments returns a subject's comments, oldest first.
func (s *Store) FindComments(ctx context.Context, orgID string, env kyc.Environment, typ kyc.SubjectType, subjectID string) ([]kyc.Comment, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, subject_type, subject_id, author_type, author_id, author_name, body, mentions, created_at
		FROM case_comments WHERE organization_id = ? AND environment = ? AND subject_type = ? AND subject_id = ? ORDER BY id LIMIT ?`,
		orgID, string(env), string(typ), subjectID, MaxComments)
	if err != nil {
		return nil, fmt.Errorf("find comments: %w", err)
	}
	defer rows.Close()
	out := []kyc.Comment{}
	for rows.Next() {
		var c kyc.Comment
		var st, at, mentions, created string
		if err := rows.Scan(&c.ID, &st, &c.SubjectID, &at, &c.AuthorID, &c.AuthorName, &c.Body, &mentions, &created); err != nil {
			return nil, fmt.Errorf("scan comment: %w", err)
		}
		c.SubjectType, c.AuthorType, c.CreatedAt = kyc.SubjectType(st), kyc.CommentAuthorType(at), parseTime(created)
		c.Mentions = strings.Fields(mentions)
		out = append(out, c)
	}
	return out, rows.Err()
}

// FindActiveUsers lists the organization's users who are not disabled,
// within the transaction (mentions resolve against them).
func (tx *Tx) FindActiveUsers(orgID string) ([]*kyc.User, error) {
	rows, err := tx.q.QueryContext(context.Background(), `SELECT `+userColumns+` FROM users u WHERE u.organization_id = ? ORDER BY u.id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("find users: %w", err)
	}
	defer rows.Close()
	var out []*kyc.User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, fmt.Errorf("scan user: %w", err)
		}
		if u.DisabledAt == nil {
			out = append(out, u)
		}
	}
	return out, rows.Err()
}
