package aml_test

import (
	"encoding/csv"
	"os"
	"strings"
	"testing"
	"time"

	"kycd/aml"
	"kycd/internal/realdata"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
	"kycd/store/storetest"
)

// batchSubjects reads the labelled customers (2,000 on no list, 683 on
// the UN list) as batch subjects, repeated up to n.
func batchSubjects(b *testing.B, n int) []kyc.AMLBatchRow {
	var base []kyc.AMLBatchSubject
	for _, f := range []string{"eval/negatives_global_dev.csv", "eval/negatives_us_dev.csv", "eval/positives_un_untreated.csv"} {
		fh, err := os.Open(realdata.Path(b, f))
		if err != nil {
			b.Fatal(err)
		}
		recs, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs[1:] { // full_name, first_name, middle_name, last_name, gender, date_of_birth, …
			first, last := strings.TrimSpace(r[1]+" "+r[2]), r[3]
			if first == "" || last == "" {
				parts := strings.Fields(r[0])
				if len(parts) < 2 {
					continue
				}
				first, last = strings.Join(parts[:len(parts)-1], " "), parts[len(parts)-1]
			}
			s := kyc.AMLBatchSubject{FirstName: &first, LastName: &last}
			if len(r[5]) == 10 {
				dob := r[5]
				s.DOB = &dob
			}
			base = append(base, s)
		}
	}
	rows := make([]kyc.AMLBatchRow, n)
	for i := range rows {
		rows[i] = kyc.AMLBatchRow{Index: i, Status: kyc.AMLRowPending, Subject: base[i%len(base)]}
	}
	return rows
}

// BenchmarkBatch10000: one batch of 10,000 subjects screened end to end
// (checks, history, audit, usage, events written) against OFAC SDN and the
// UN list, on a real SQLite file. Run with
// go test ./aml -run XXX -bench Batch10000 -benchtime 1x -cpu 2.
func BenchmarkBatch10000(b *testing.B) {
	st := storetest.Open(b)
	for _, l := range []aml.ImportSpec{
		{Source: "ofac-sdn", Kind: screening.Sanctions, Format: "ofac-csv", Files: []string{
			realdata.Path(b, "lists/ofac_sdn_2024-05-03.csv")}},
		{Source: "un", Kind: screening.Sanctions, Format: "un-xml", Files: []string{realdata.Path(b, "lists/un_consolidated_2026-02-27.xml")}},
	} {
		if _, err := aml.Import(b.Context(), st, l); err != nil {
			b.Fatal(err)
		}
	}
	sc, err := screening.NewScreener()
	if err != nil {
		b.Fatal(err)
	}
	svc := aml.New(st, sc, nil)
	if err := svc.Refresh(b.Context()); err != nil {
		b.Fatal(err)
	}
	org := storetest.MustOrg(b, st, "bench", nil)
	if err := st.InTx(b.Context(), func(tx *store.Tx) error { return tx.SetAMLKinds(org.ID, []string{"sanctions"}) }); err != nil {
		b.Fatal(err)
	}
	rows := batchSubjects(b, kyc.MaxBatchSubjects)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		var batch *kyc.AMLBatch
		if err := st.InTx(b.Context(), func(tx *store.Tx) (err error) {
			batch, err = svc.CreateBatch(tx, org.ID, kyc.Live, rows, false)
			return err
		}); err != nil {
			b.Fatal(err)
		}
		stored := time.Since(start)
		if err := svc.RunBatch(b.Context(), org.ID, kyc.Live, batch.ID); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		done, err := st.FindAMLBatch(b.Context(), org.ID, kyc.Live, batch.ID)
		if err != nil {
			b.Fatal(err)
		}
		if done.Status != kyc.AMLBatchCompleted || done.Screened != len(rows) {
			b.Fatalf("batch: %+v", done)
		}
		b.ReportMetric(took.Seconds(), "s/batch")
		b.ReportMetric(stored.Seconds(), "s-stored/batch")
		b.ReportMetric(float64(done.PotentialMatches), "potential-matches")
	}
}
