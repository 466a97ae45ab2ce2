package store_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// newRequest writes a live request with the engine's reason codes and a
// decision's codes (nil for none).
func newRequest(t *testing.T, s *store.Store, orgID string, engine, review []string) string {
	t.Helper()
	var id string
	err := s.InTx(t.Context(), func(tx *store.Tx) error {
		first, last := "Ada", "Lovelace"
		a, err := tx.CreateApplicant(orgID, kyc.Live, &kyc.ApplicantInput{FirstName: &first, LastName: &last})
		if err != nil {
			return err
		}
		r := &kyc.KYCRequest{OrganizationID: orgID, Environment: kyc.Live, ApplicantID: a.ID, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: tx.Now()}
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		var reasons []any
		for _, c := range engine {
			reasons = append(reasons, map[string]any{"code": c, "action": "review"})
		}
		r.ProcessingResult = map[string]any{"reasons": reasons}
		r.Status, r.Decision, r.ReviewReasonCodes = kyc.KYCAwaitingReview, kyc.DecisionPending, review
		id = r.ID
		return tx.SaveKYCRequest(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func listIDs(t *testing.T, s *store.Store, orgID string, f store.VerificationFilter) ([]string, int) {
	t.Helper()
	f.Page, f.Size = 1, 50
	items, total, err := s.ListVerifications(t.Context(), orgID, kyc.Live, f)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids, total
}

// TestVerificationsReasonAndTagFilters: the list filters by an engine's
// or a decision's code and by tag, through kyc_request_reasons and
// case_tags, alike on the index-only path (the filter alone) and the
// probing one (with a status), in both orders; a request's codes follow
// its saves; another organization's rows never show.
func TestVerificationsReasonAndTagFilters(t *testing.T) {
	s := storetest.Open(t)
	org := storetest.MustOrg(t, s, "acme", nil)
	other := storetest.MustOrg(t, s, "other", nil)
	a := newRequest(t, s, org.ID, []string{"FACE_MISMATCH", "IMAGE_BLURRY"}, nil)
	b := newRequest(t, s, org.ID, []string{"IMAGE_BLURRY"}, []string{"DOCUMENT_FORGED", "FACE_MISMATCH"})
	newRequest(t, s, org.ID, nil, nil)
	newRequest(t, s, other.ID, []string{"FACE_MISMATCH"}, []string{"DOCUMENT_FORGED"})
	tag := func(id, t2 string) {
		if err := s.InTx(t.Context(), func(tx *store.Tx) error {
			_, err := tx.AddTag(org.ID, kyc.Live, kyc.SubjectKYCRequest, id, t2)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	tag(a, "vip")
	tag(b, "vip")
	tag(b, "ring")
	for _, tc := range []struct {
		name string
		f    store.VerificationFilter
		want []string
	}{
		{"engine code", store.VerificationFilter{Reason: "IMAGE_BLURRY"}, []string{b, a}},
		{"engine code, oldest", store.VerificationFilter{Reason: "IMAGE_BLURRY", Sort: store.SortOldest}, []string{a, b}},
		{"engine and decision code", store.VerificationFilter{Reason: "FACE_MISMATCH"}, []string{b, a}},
		{"decision code", store.VerificationFilter{Reason: "DOCUMENT_FORGED"}, []string{b}},
		{"decision code, with a status", store.VerificationFilter{Reason: "DOCUMENT_FORGED", Status: kyc.KYCAwaitingReview}, []string{b}},
		{"code, with a status none has", store.VerificationFilter{Reason: "FACE_MISMATCH", Status: kyc.KYCRejected}, nil},
		{"code, by risk", store.VerificationFilter{Reason: "FACE_MISMATCH", Sort: store.SortRisk}, nil},
		{"tag", store.VerificationFilter{Tag: "vip"}, []string{b, a}},
		{"tag, oldest", store.VerificationFilter{Tag: "vip", Sort: store.SortOldest}, []string{a, b}},
		{"tag and code", store.VerificationFilter{Tag: "vip", Reason: "DOCUMENT_FORGED"}, []string{b}},
		{"tag, with a status", store.VerificationFilter{Tag: "ring", Status: kyc.KYCAwaitingReview}, []string{b}},
		{"unknown tag", store.VerificationFilter{Tag: "nope"}, nil},
	} {
		got, total := listIDs(t, s, org.ID, tc.f)
		if !slices.Equal(got, tc.want) || total != len(tc.want) {
			t.Errorf("%s: %v (total %d), want %v", tc.name, got, total, tc.want)
		}
	}
	// Each row carries its tags and its decision's codes (one query for
	// the page's tags), the other organization's tags never.
	if items, _, err := s.ListVerifications(t.Context(), org.ID, kyc.Live, store.VerificationFilter{Page: 1, Size: 10}); err != nil || len(items) != 3 {
		t.Errorf("list: %v %v", items, err)
	} else {
		for _, it := range items {
			want := [2]string{}
			switch it.ID {
			case a:
				want = [2]string{"vip", ""}
			case b:
				want = [2]string{"ring vip", "DOCUMENT_FORGED FACE_MISMATCH"}
			}
			if got := [2]string{strings.Join(it.Tags, " "), strings.Join(it.ReviewReasonCodes, " ")}; got != want {
				t.Errorf("%s: tags and decision codes %q, want %q", it.ID, got, want)
			}
		}
	}
	// Keyset paging (the export) with a code.
	if items, _, err := s.ListVerifications(t.Context(), org.ID, kyc.Live, store.VerificationFilter{Reason: "IMAGE_BLURRY", After: b, Size: 10}); err != nil ||
		len(items) != 1 || items[0].ID != a {
		t.Errorf("keyset after b: %v %v", items, err)
	}
	// The queue filters by tag too.
	q, n, err := s.FindReviewQueue(t.Context(), org.ID, kyc.Live, store.QueueFilter{Tag: "ring", Page: 1, Size: 10}, time.Now())
	if err != nil || n != 1 || q[0].ID != b {
		t.Errorf("queue by tag: %v %d %v", q, n, err)
	}
	// A save with other codes replaces the rows.
	if err := s.InTx(t.Context(), func(tx *store.Tx) error {
		r, err := tx.FindKYCRequest(org.ID, kyc.Live, a)
		if err != nil {
			return err
		}
		r.ProcessingResult = map[string]any{"reasons": []any{map[string]any{"code": "SELFIE_NOT_LIVE"}}}
		return tx.SaveKYCRequest(r)
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := listIDs(t, s, org.ID, store.VerificationFilter{Reason: "IMAGE_BLURRY"}); !slices.Equal(got, []string{b}) {
		t.Errorf("after the save, IMAGE_BLURRY: %v", got)
	}
	if got, _ := listIDs(t, s, org.ID, store.VerificationFilter{Reason: "SELFIE_NOT_LIVE"}); !slices.Equal(got, []string{a}) {
		t.Errorf("after the save, SELFIE_NOT_LIVE: %v", got)
	}

	// Migration 0033's backfill, run again on rows it must rebuild: the
	// space-separated engine codes and the single decision code.
	db := storetest.SQL(t, s)
	if _, err := db.Exec(`DELETE FROM kyc_request_reasons`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE kyc_requests SET reason_codes = ' X1  X2 X3', review_reason_code = 'R1' WHERE id = ?`, a); err != nil {
		t.Fatal(err)
	}
	path := "migrations/0033_case_notes.sql"
	if storetest.DefaultEngine() == "postgres" {
		path = "migrations/postgres/0033_case_notes.sql"
	}
	mig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sqlText := string(mig)
	from, to := strings.Index(sqlText, "-- The existing codes"), strings.Index(sqlText, "-- The reason filter reads")
	if storetest.DefaultEngine() == "postgres" {
		from, to = strings.Index(sqlText, "INSERT INTO kyc_request_reasons"), strings.Index(sqlText, "DROP INDEX")
	}
	if from < 0 || to < from {
		t.Fatalf("backfill not found in %s", path)
	}
	if _, err := db.Exec(sqlText[from:to]); err != nil {
		t.Fatalf("backfill: %v", err)
	}
	for code, want := range map[string][]string{"X1": {a}, "X2": {a}, "X3": {a}, "R1": {a}, "IMAGE_BLURRY": {b}, "DOCUMENT_FORGED": {b},
		// Before 0033 a decision had one code (review_reason_code): b's
		// second one is not in what the backfill reads.
		"FACE_MISMATCH": nil} {
		if got, _ := listIDs(t, s, org.ID, store.VerificationFilter{Reason: code}); !slices.Equal(got, want) {
			t.Errorf("after the backfill, %s: %v, want %v", code, got, want)
		}
	}
}

// TestTagsAndComments: tags are per subject, idempotent and bounded;
// comments come back in order with their mentions; another organization
// or environment sees none.
func TestTagsAndComments(t *testing.T) {
	s := storetest.Open(t)
	org := storetest.MustOrg(t, s, "acme", nil)
	id := newRequest(t, s, org.ID, nil, nil)
	in := func(fn func(tx *store.Tx) error) error { return s.InTx(t.Context(), fn) }
	for i := range kyc.MaxTags {
		if err := in(func(tx *store.Tx) error {
			added, err := tx.AddTag(org.ID, kyc.Live, kyc.SubjectKYCRequest, id, "t"+string(rune('a'+i)))
			if err == nil && !added {
				t.Errorf("tag %d not added", i)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := in(func(tx *store.Tx) error {
		added, err := tx.AddTag(org.ID, kyc.Live, kyc.SubjectKYCRequest, id, "ta")
		if added {
			t.Error("a tag the case has was added again")
		}
		return err
	}); err != nil {
		t.Errorf("re-adding a tag to a full case: %v", err)
	}
	if err := in(func(tx *store.Tx) error {
		_, err := tx.AddTag(org.ID, kyc.Live, kyc.SubjectKYCRequest, id, "one-more")
		return err
	}); kyc.ErrorCode(err) != kyc.EValidation {
		t.Errorf("tag %d: %v, want a validation error", kyc.MaxTags+1, err)
	}
	if tags, err := s.FindTags(t.Context(), org.ID, kyc.Live, kyc.SubjectKYCRequest, id); err != nil || len(tags) != kyc.MaxTags || tags[0] != "ta" {
		t.Errorf("tags: %v %v", tags, err)
	}
	if tags, _ := s.FindTags(t.Context(), org.ID, kyc.Sandbox, kyc.SubjectKYCRequest, id); len(tags) != 0 {
		t.Errorf("sandbox sees live tags: %v", tags)
	}
	if used, _ := s.FindUsedTags(t.Context(), org.ID, kyc.Live, kyc.SubjectKYCRequest); len(used) != kyc.MaxTags {
		t.Errorf("used tags: %v", used)
	}
	for _, body := range []string{"first", "second"} {
		if err := in(func(tx *store.Tx) error {
			return tx.CreateComment(org.ID, kyc.Live, &kyc.Comment{SubjectType: kyc.SubjectKYCRequest, SubjectID: id, AuthorType: kyc.CommentByUser,
				AuthorID: "usr_x", AuthorName: "X", Body: body, Mentions: []string{"usr_a", "usr_b"}})
		}); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := s.FindComments(t.Context(), org.ID, kyc.Live, kyc.SubjectKYCRequest, id)
	if err != nil || len(cs) != 2 || cs[0].Body != "first" || cs[1].Body != "second" || !slices.Equal(cs[0].Mentions, []string{"usr_a", "usr_b"}) {
		t.Errorf("comments: %+v %v", cs, err)
	}
	other := storetest.MustOrg(t, s, "other", nil)
	if cs, _ := s.FindComments(t.Context(), other.ID, kyc.Live, kyc.SubjectKYCRequest, id); len(cs) != 0 {
		t.Errorf("another organization sees the comments")
	}
	// Erasing the applicant removes the comments (free text, as reviewer
	// notes); the tags stay with the tombstone.
	r, err := s.FindKYCRequest(t.Context(), org.ID, kyc.Live, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.EraseApplicant(t.Context(), store.ErasureRequest{OrganizationID: org.ID, Environment: kyc.Live, ApplicantID: r.ApplicantID,
		Rule: kyc.ErasureOnRequest}); err != nil {
		t.Fatal(err)
	}
	if cs, _ := s.FindComments(t.Context(), org.ID, kyc.Live, kyc.SubjectKYCRequest, id); len(cs) != 0 {
		t.Errorf("comments after the erasure: %+v", cs)
	}
	if tags, _ := s.FindTags(t.Context(), org.ID, kyc.Live, kyc.SubjectKYCRequest, id); len(tags) != kyc.MaxTags {
		t.Errorf("tags after the erasure: %v", tags)
	}
}
