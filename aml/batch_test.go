package aml_test

import (
	"fmt"
	"testing"

	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

func subject(first, last string, dob, country *string) kyc.AMLBatchSubject {
	return kyc.AMLBatchSubject{FirstName: &first, LastName: &last, DOB: dob, Country: country}
}

func (e *env) batch(rows []kyc.AMLBatchRow) *kyc.AMLBatch {
	e.t.Helper()
	var b *kyc.AMLBatch
	err := e.st.InTx(e.t.Context(), func(tx *store.Tx) (err error) {
		b, err = e.svc.CreateBatch(tx, e.org.ID, kyc.Live, rows, false)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

func (e *env) checkCount() int {
	e.t.Helper()
	_, total, err := e.st.FindAMLChecks(e.t.Context(), e.org.ID, kyc.Live, kyc.AMLCheckFilter{Page: 1, Size: 1})
	if err != nil {
		e.t.Fatal(err)
	}
	return total
}

// TestBatchResumesAndSuppresses: a batch stopped after its first chunk
// (as a crash would leave it) resumes with the rows still pending and
// screens none twice; it completes once with one svc.aml_batch.completed,
// and running it again changes nothing. A subject decided false positive
// before is suppressed in the batch (no match_found), a namesake with
// another date of birth is not.
func TestBatchResumesAndSuppresses(t *testing.T) {
	e := newEnv(t)
	e.importList("in-house", screening.Sanctions, "name,reference\nIvan Sidorov,S-1\n")
	if err := e.svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	dob, ru := strp("1980-02-03"), strp("RU")
	c := e.createFor(e.org.ID, "Ivan", "Sidorov", dob, ru, false)
	e.decide(c, onlyMatch(t, c).ID, kyc.MatchFalsePositive)
	before := e.checkCount()

	const n = 1100 // three chunks of 500
	rows := make([]kyc.AMLBatchRow, n)
	for i := range rows {
		rows[i] = kyc.AMLBatchRow{Index: i, Status: kyc.AMLRowPending, Subject: subject("Clear", fmt.Sprintf("Person%d", i), nil, nil)}
	}
	rows[0].Subject = subject("Ivan", "Sidorov", dob, ru)
	rows[1].Subject = subject("Ivan", "Sidorov", strp("1991-07-08"), ru)
	rows[2] = kyc.AMLBatchRow{Index: 2, Status: kyc.AMLRowFailed, Errors: []kyc.FieldError{{Field: "firstName", Message: "is required"}}}
	b := e.batch(rows)
	if b.Total != n || b.Failed != 1 || b.Status != kyc.AMLBatchQueued {
		t.Fatalf("created: %+v", b)
	}
	if err := e.svc.RunBatchChunks(t.Context(), e.org.ID, kyc.Live, b.ID, 1); err != nil {
		t.Fatal(err)
	}
	mid, err := e.st.FindAMLBatch(t.Context(), e.org.ID, kyc.Live, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if mid.Status != kyc.AMLBatchRunning || mid.Screened != 500 || e.checkCount()-before != 500 {
		t.Fatalf("after one chunk: %+v, %d checks", mid, e.checkCount()-before)
	}
	for range 2 { // the resumed run, then a repeat that finds nothing to do
		if err := e.svc.RunBatch(t.Context(), e.org.ID, kyc.Live, b.ID); err != nil {
			t.Fatal(err)
		}
	}
	done, err := e.st.FindAMLBatch(t.Context(), e.org.ID, kyc.Live, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != kyc.AMLBatchCompleted || done.Screened != n-1 || done.PotentialMatches != 2 || e.checkCount()-before != n-1 {
		t.Fatalf("completed: %+v, %d checks", done, e.checkCount()-before)
	}
	if got := e.events(kyc.EventAMLBatchCompleted, b.ID); got != 1 {
		t.Fatalf("%d batch_completed events", got)
	}
	out, _, err := e.st.FindBatchRows(t.Context(), b.ID, "", 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	same, other := e.load(*out[0].CheckID), e.load(*out[1].CheckID)
	if onlyMatch(t, same).Suppressed == nil || same.ReviewStatus != kyc.AMLReviewResolved || e.events(kyc.EventAMLMatchFound, same.ID) != 0 {
		t.Errorf("same subject in the batch: suppressed %+v, %s", onlyMatch(t, same).Suppressed, same.ReviewStatus)
	}
	if onlyMatch(t, other).Suppressed != nil || e.events(kyc.EventAMLMatchFound, other.ID) != 1 {
		t.Error("namesake with another date of birth: suppressed, or no match_found")
	}
	if out[2].Status != kyc.AMLRowFailed || out[2].CheckID != nil || len(out[2].Errors) != 1 {
		t.Errorf("failed row: %+v", out[2])
	}
	if e.events(kyc.EventAMLCompleted, other.ID) != 0 {
		t.Error("a batch check fired svc.aml_check.completed")
	}
}
