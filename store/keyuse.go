package store

import (
	"context"
	"fmt"
	"time"

	"kycd/kyc"
)

// KeyUse is what the server saw of one key since its last flush.
type KeyUse struct {
	KeyID    string
	Requests map[time.Time]int // per UTC hour
	LastAt   time.Time
	LastIP   string
}

// KeyUseRetention is how long hourly request counts are kept.
const KeyUseRetention = 48 * time.Hour

// RecordKeyUse adds counts to the keys' hourly rows, moves their last use
// forward (never back) and drops hours older than KeyUseRetention.
func (tx *Tx) RecordKeyUse(uses []KeyUse) error {
	for _, u := range uses {
		for h, n := range u.Requests {
			if _, err := tx.exec(`INSERT INTO api_key_requests (key_id, hour, requests) VALUES (?, ?, ?)
				ON CONFLICT (key_id, hour) DO UPDATE SET requests = api_key_requests.requests + excluded.requests`,
				u.KeyID, h.UTC().Format("2006-01-02T15"), n); err != nil {
				return fmt.Errorf("record key use: %w", err)
			}
		}
		if _, err := tx.exec(`UPDATE api_keys SET last_used_at = ?, last_used_ip = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`,
			kyc.FormatTime(u.LastAt), u.LastIP, u.KeyID, kyc.FormatTime(u.LastAt)); err != nil {
			return fmt.Errorf("record key use: %w", err)
		}
	}
	_, err := tx.exec(`DELETE FROM api_key_requests WHERE hour < ?`, tx.now.Add(-KeyUseRetention).UTC().Format("2006-01-02T15"))
	return err
}

// KeyActivity is a key's recorded use.
type KeyActivity struct {
	LastUsedAt  *time.Time
	LastUsedIP  string
	Requests24h int // in the 24 whole hours before now, this hour included
}

// FindKeyActivity returns the activity of the organization's keys by id.
func (s *Store) FindKeyActivity(ctx context.Context, orgID string, now time.Time) (map[string]KeyActivity, error) {
	since := now.Add(-23 * time.Hour).UTC().Format("2006-01-02T15")
	rows, err := s.reader.QueryContext(ctx, `SELECT k.id, k.last_used_at, coalesce(k.last_used_ip, ''),
			coalesce((SELECT sum(requests) FROM api_key_requests r WHERE r.key_id = k.id AND r.hour >= ?), 0)
		FROM api_keys k WHERE k.organization_id = ?`, since, orgID)
	if err != nil {
		return nil, fmt.Errorf("key activity: %w", err)
	}
	defer rows.Close()
	out := map[string]KeyActivity{}
	for rows.Next() {
		var id, ip string
		var last *string
		var n int
		if err := rows.Scan(&id, &last, &ip, &n); err != nil {
			return nil, fmt.Errorf("key activity: %w", err)
		}
		a := KeyActivity{LastUsedIP: ip, Requests24h: n}
		if last != nil {
			t := parseTime(*last)
			a.LastUsedAt = &t
		}
		out[id] = a
	}
	return out, rows.Err()
}
