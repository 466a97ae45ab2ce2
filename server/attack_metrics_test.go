package server_test

import (
	"strings"
	"testing"
	"time"
)

// TestAttackDeskMetricsReviewerLabel: a reviewer's name given through the
// API is free text; dressed as a user id ("usr_…") it must still not be
// counted as a back-office reviewer: it would put a person's name (here
// an e-mail address) into /metrics labels and the dashboard, and let
// each API call mint a new series. Nor does /metrics carry the
// applicant's name.
func TestAttackDeskMetricsReviewerLabel(t *testing.T) {
	e := newKYCEnv(t)
	key := e.A.LiveKey
	c := e.create(key, `{"applicant":{"firstName":"Ada","lastName":"Lovelace","dob":"1990-12-10","country":"GB"}}`)
	id := c["id"].(string)
	e.submit(token(t, c), "passport", true)
	e.runJobs()
	r := e.call("POST", "/v1/kyc-requests/"+id+"/approve", key, `{"note":"Checked by hand.","reviewer":"usr_jane.doe@example.com"}`)
	if r.status != 200 {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	body := e.scrape("")
	for _, leak := range []string{"jane.doe", "example.com", "Lovelace"} {
		if strings.Contains(body, leak) {
			t.Errorf("/metrics carries %q", leak)
		}
	}
	st, err := e.store.DeskStats(t.Context(), e.A.ID, "live", e.clock.Now().Add(-24*time.Hour), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Reviewers) != 0 {
		t.Errorf("the dashboard counts an API-given name as a reviewer: %+v", st.Reviewers)
	}
}
