package decision_test

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"kycd/decision"
	"kycd/internal/realdata"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store/storetest"
)

// BenchmarkEngine is one automated decision for a typical submission:
// two document sides and a selfie of 1-3 MP each, a document MRZ, the
// applicant screened against the sandbox list, duplicate and integrity
// queries on a real database, and the face models on the document front
// and the selfie. It reports the p50 and p99 of single
// decisions besides ns/op.
func BenchmarkEngine(b *testing.B) {
	st := storetest.Open(b)
	sc, err := screening.NewScreener()
	if err != nil {
		b.Fatal(err)
	}
	engine := &decision.Auto{Store: st, Now: time.Now, ImageSignals: decision.ImageSignals,
		Screen: func(ctx context.Context, orgID string, env kyc.Environment, first, last string, dob, country *string) ([]kyc.ListResult, error) {
			return sc.Screen(env, screening.Query{Name: first + " " + last}, screening.DefaultThreshold), nil
		}}
	front, back := "front", "back"
	load := func(rel string) []byte {
		data, err := os.ReadFile(realdata.Path(b, rel))
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	caps := []kyc.Capture{
		{ID: "cap_front", Kind: "document", Side: &front, Data: load("images/doc_td3_deu_passport_specimen.jpg"), SourceSHA256: "a", SHA256: "a", Method: "camera", IP: "192.0.2.1"},
		{ID: "cap_back", Kind: "document", Side: &back, Data: load("images/doc_td3_lux_passport_camera_photo.jpg"), SourceSHA256: "b", SHA256: "b", Method: "camera", IP: "192.0.2.1"},
		{ID: "cap_selfie", Kind: "selfie", Data: load("images/face_biden_02_portrait.jpg"), SourceSHA256: "c", SHA256: "c", Method: "camera", IP: "192.0.2.1"},
	}
	org := storetest.MustOrg(b, st, "bench", nil)
	dob := "1974-08-12"
	in := decision.Input{
		Request: &kyc.KYCRequest{ID: "kyc_bench", OrganizationID: org.ID, Environment: kyc.Live, ApplicantID: "app_bench",
			DocumentData: &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "SE", DocumentNumber: "L898902C3", ExpiryDate: "2030-01-01",
				MRZ: "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"}},
		Applicant: &kyc.Applicant{ID: "app_bench", FirstName: "Anna Maria", LastName: "Eriksson", DOB: &dob},
		Captures:  caps,
	}
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := engine.Decide(b.Context(), in); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	ms := func(q float64) float64 { return float64(times[int(q*float64(len(times)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}
