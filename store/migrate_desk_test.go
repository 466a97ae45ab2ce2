package store

import (
	"testing"
	"time"

	"kycd/kyc"
)

// TestMigrateDecisionCounts: migration 0029 counts the decisions made
// before it, per day, outcome and decider, names the console reviewer (not
// a name given through the API), and fills the decision-time histogram,
// so that the dashboard shows them at once.
func TestMigrateDecisionCounts(t *testing.T) {
	path, db := openBefore(t, "_review_desk.sql")
	const created = "2026-01-02T03:04:05.000Z"
	for _, q := range []string{
		`INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'Org', '` + created + `')`,
		`INSERT INTO users (id, organization_id, email, name, role, created_at, updated_at)
		 VALUES ('usr_1', 'org_1', 'jo@example.com', 'Jo Reviewer', 'reviewer', '` + created + `', '` + created + `')`,
		`INSERT INTO applicants (id, public_id, organization_id, environment, first_name, last_name, status, created_at, updated_at)
		 VALUES ('app_1', 'app_p1', 'org_1', 'live', 'Ada', 'Lovelace', 'active', '` + created + `', '` + created + `')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	// r1 approved by Jo 3 hours after submission; r2 rejected by the
	// engine at once; r3 rejected through the API by a named person 27
	// hours after; r4 awaits review.
	for i, r := range []struct{ status, decision, by, submitted, decided, actor string }{
		{"approved", "approved", "person", "2026-01-02T07:00:00.000Z", "2026-01-02T10:00:00.000Z", "usr_1"},
		{"rejected", "rejected", "engine", "2026-01-02T11:00:00.000Z", "2026-01-02T11:00:00.000Z", ""},
		{"rejected", "rejected", "person", "2026-01-02T08:00:00.000Z", "2026-01-03T11:00:00.000Z", "Jo (key_x)"},
		{"awaiting_review", "pending", "", "2026-01-02T08:00:00.000Z", "", ""},
	} {
		id := "kyc_0" + string(rune('1'+i))
		var by, decided any
		if r.by != "" {
			by, decided = r.by, r.decided
		}
		if _, err := db.Exec(`INSERT INTO kyc_requests (id, public_id, organization_id, environment, applicant_id, status, decision, workflow_type,
			portal_token_hash, portal_expires_at, created_at, updated_at, submitted_at, decided_at, decided_by)
			VALUES (?, ?, 'org_1', 'live', 'app_1', ?, ?, 'standard', ?, '2026-02-01T00:00:00.000Z', ?, ?, ?, ?, ?)`,
			id, "kyc_p"+id, r.status, r.decision, []byte(id), created, created, r.submitted, decided, by); err != nil {
			t.Fatal(err)
		}
		if r.actor != "" {
			if _, err := db.Exec(`INSERT INTO kyc_events (id, request_id, type, to_status, decision, actor_type, actor_id, created_at)
				VALUES (?, ?, 'svc.kyc.request.decided', ?, ?, 'reviewer', ?, ?)`, "kte_"+id, id, r.status, r.decision, r.actor, r.decided); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()
	s, err := Open(t.Context(), path, Options{MasterKey: func(bool) (Sealer, error) { return testSealer(t), nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.DeskStats(t.Context(), "org_1", kyc.Live, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if st.QueueDepth != 1 || st.Overdue != 1 || st.Total.Decided != 3 || st.Total.Approved != 1 || st.Total.Engine != 1 || st.Total.Person != 2 ||
		len(st.Days) != 2 || st.Days[1].Rejected != 1 {
		t.Errorf("stats after the migration: %+v", st)
	}
	// 0 s, 3 h and 27 h: the median is 10,800 s (bucket 10,000-10,999),
	// the p90 97,200 s (bucket 97,000-97,999).
	if st.MedianSeconds == nil || *st.MedianSeconds != 10500 || st.P90Seconds == nil || *st.P90Seconds != 97500 {
		t.Errorf("decision times: %v %v", st.MedianSeconds, st.P90Seconds)
	}
	if len(st.Reviewers) != 1 || st.Reviewers[0].UserID != "usr_1" || st.Reviewers[0].Name != "Jo Reviewer" || st.Reviewers[0].Approved != 1 {
		t.Errorf("reviewers: %+v", st.Reviewers)
	}
}
