package store

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/seal"
)

// BenchmarkListVerifications measures pages of the list of all
// verifications with 100,000 requests in a temporary SQLite database: a
// mix of filters and sort orders on pages spread over the whole list
// (deep offsets included). It reports p50 and p95 per page (count and
// page query together, as the console runs them).
//
//	CGO_ENABLED=0 go test ./store -run '^$' -bench ListVerifications -benchtime 400x
func BenchmarkListVerifications(b *testing.B) {
	ctx := context.Background()
	seedBench(b)
	s, org, users := benchSeed.s, benchSeed.org, benchSeed.users
	if s == nil {
		b.Fatal("seeding failed")
	}
	filters := []VerificationFilter{
		{},
		{Sort: SortOldest},
		{Sort: SortDecided},
		{Sort: SortRisk},
		{Status: kyc.KYCAwaitingReview},
		{Status: kyc.KYCRejected, Sort: SortDecided},
		{Decision: "approved", DecidedBy: DecidedByEngine},
		{DecidedBy: DecidedByPerson, Sort: SortDecided},
		{Reason: "FACE_MISMATCH"},
		{Reason: "SANCTIONS_MATCH", Status: kyc.KYCAwaitingReview},
		{Tag: "vip"},
		{Tag: "fraud-ring", Status: kyc.KYCAwaitingReview},
		{Assignee: users[0]},
		{Assignee: "none", Status: kyc.KYCAwaitingReview},
		{RiskMin: ptr(70.0)},
		{CreatedFrom: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), CreatedTo: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)},
		{DecidedFrom: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Sort: SortDecided},
	}
	times := make([]time.Duration, 0, b.N)
	per := make([][]time.Duration, len(filters))
	totals := make([]int, len(filters)) // rows each filter matches, to show that it matched some
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := filters[i%len(filters)]
		f.Size = 50
		// Pages up to 2,000 deep (the whole unfiltered list), spread by a
		// fixed stride over the rounds, so that every run measures the same
		// pages for each filter whatever the number of filters.
		round := i / len(filters)
		f.Page = 1 + (round*7919)%2000
		if round%3 == 0 {
			f.Page = 1
		}
		t0 := time.Now()
		_, total, err := s.ListVerifications(ctx, org, kyc.Live, f)
		if err != nil {
			b.Fatal(err)
		}
		totals[i%len(filters)] = total
		times = append(times, time.Since(t0))
		per[i%len(filters)] = append(per[i%len(filters)], time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(times)
	pct := func(p float64) float64 { return float64(times[int(p*float64(len(times)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(pct(1), "max-ms")
	if b.N >= 2*len(filters) {
		// One line (a benchmark's log keeps only its first lines): the
		// median per filter, in the order of filters above.
		var sum []string
		for i, d := range per {
			slices.Sort(d)
			sum = append(sum, fmt.Sprintf("#%d %s (%d rows)", i, d[len(d)/2].Round(100*time.Microsecond), totals[i]))
		}
		b.Logf("median per filter: %s", strings.Join(sum, ", "))
	}
}

// seedBench writes the benchmarks' 100,000 requests once per process
// (a benchmark function runs more than once: b.N = 1 first).
func seedBench(b *testing.B) {
	ctx := context.Background()
	benchSeed.Do(func() {
		master := func(bool) (Sealer, error) { return seal.New(make([]byte, seal.KeySize)) }
		dir, err := os.MkdirTemp("", "kycd-bench-verifications")
		if err != nil {
			b.Fatal(err)
		}
		benchSeed.dir = dir
		if benchSeed.s, err = Open(ctx, filepath.Join(dir, "kyc.db"), Options{MasterKey: master}); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		benchSeed.org, benchSeed.users = seedVerifications(b, benchSeed.s, 100_000)
		b.Logf("seeded 100000 requests in %s", time.Since(start).Round(time.Millisecond))
	})
	if benchSeed.s == nil {
		b.Fatal("seeding failed")
	}
}

var benchSeed struct {
	sync.Once
	dir   string
	s     *Store
	org   string
	users []string
}

// TestMain removes the benchmark's database.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchSeed.s != nil {
		benchSeed.s.Close()
		os.RemoveAll(benchSeed.dir)
	}
	os.Exit(code)
}

func ptr[T any](v T) *T { return &v }

// seedVerifications writes n requests straight into the tables (the
// lifecycle is too slow for 100,000): statuses, deciders, risk, reason
// codes, assignees and times spread as a busy environment has them.
func seedVerifications(b *testing.B, s *Store, n int) (orgID string, userIDs []string) {
	ctx := context.Background()
	codes := []string{"FACE_MISMATCH", "SANCTIONS_MATCH", "DOCUMENT_NOT_READ", "IMAGE_BLURRY", "PEP_MATCH", "DUPLICATE_FACE", "SELFIE_NOT_LIVE"}
	rng := rand.New(rand.NewPCG(1, 2))
	// Tags draw from their own generator, so that every other column is
	// as before tags existed (benchmarks before and after compare).
	tagRNG := rand.New(rand.NewPCG(3, 4))
	err := s.InTx(ctx, func(tx *Tx) error {
		o, err := tx.CreateOrganization("Bench Ltd", "")
		if err != nil {
			return err
		}
		orgID = o.ID
		for i := range 5 {
			u, err := tx.CreateUser(o.ID, fmt.Sprintf("rev%d@bench.example", i), fmt.Sprintf("Reviewer %d", i), kyc.RoleReviewer)
			if err != nil {
				return err
			}
			userIDs = append(userIDs, u.ID)
		}
		base := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
		for i := range n {
			created := base.Add(time.Duration(i) * (90 * 24 * time.Hour / time.Duration(n)))
			ts := kyc.FormatTime(created)
			appID, reqID := "app_"+NewULID(created), "kyc_"+NewULID(created)
			if _, err := tx.exec(`INSERT INTO applicants (id, public_id, organization_id, environment, first_name, last_name, email, status, created_at, updated_at)
				VALUES (?, ?, ?, 'live', ?, ?, ?, 'active', ?, ?)`, appID, fmt.Sprintf("app_b%011d", i), o.ID, fmt.Sprintf("First%d", i%97),
				fmt.Sprintf("Last%d", i%1009), fmt.Sprintf("p%d@example.com", i), ts, ts); err != nil {
				return err
			}
			status, decision, by := "approved", "approved", any("engine")
			switch r := rng.IntN(100); {
			case r < 10:
				status, decision, by = "awaiting_review", "pending", nil
			case r < 25:
				status, decision = "rejected", "rejected"
			case r < 30:
				status, decision, by = "link_generated", "pending", nil
			case r < 33:
				status, decision, by = "expired", "none", nil
			}
			if by != nil && rng.IntN(4) == 0 {
				by = "person"
			}
			var submitted, decided, assignee any
			reviewer := ""
			if status != "link_generated" && status != "expired" {
				submitted = kyc.FormatTime(created.Add(10 * time.Minute))
			}
			if by != nil {
				decided = kyc.FormatTime(created.Add(time.Duration(15+rng.IntN(3000)) * time.Minute))
				if by == "person" {
					reviewer = userIDs[rng.IntN(len(userIDs))]
				}
			}
			if rng.IntN(5) == 0 {
				assignee = userIDs[rng.IntN(len(userIDs))]
			}
			var rc []string
			for _, c := range codes {
				if rng.IntN(6) == 0 {
					rc = append(rc, c)
				}
			}
			tok := sha256.Sum256([]byte(reqID))
			if _, err := tx.exec(`INSERT INTO kyc_requests (id, public_id, organization_id, environment, applicant_id, status, decision, risk_score,
				workflow_type, portal_token_hash, portal_expires_at, reason_codes, submitted_at, decided_at, decided_by, assignee_id, created_at, updated_at)
				VALUES (?, ?, ?, 'live', ?, ?, ?, ?, 'standard', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				reqID, fmt.Sprintf("kyc_b%011d", i), o.ID, appID, status, decision, float64(rng.IntN(1000))/10, tok[:], ts,
				strings.Join(rc, " "), submitted, decided, by, assignee, ts, ts); err != nil {
				return err
			}
			for _, c := range rc {
				if _, err := tx.exec(`INSERT INTO kyc_request_reasons (organization_id, environment, code, request_id, source)
					VALUES (?, 'live', ?, ?, 'engine')`, o.ID, c, reqID); err != nil {
					return err
				}
			}
			// A tenth of the cases carry a tag, as a team tags the ones it
			// follows.
			if tagRNG.IntN(10) == 0 {
				if _, err := tx.exec(`INSERT INTO case_tags (organization_id, environment, subject_type, subject_id, tag, created_at)
					VALUES (?, 'live', 'kyc_request', ?, ?, ?)`, o.ID, reqID, []string{"vip", "follow-up", "fraud-ring"}[tagRNG.IntN(3)], ts); err != nil {
					return err
				}
			}
			if by != nil {
				// The dashboard's daily counts, as a decision made at its
				// time records them.
				now := tx.now
				tx.now = parseTime(decided.(string))
				err := tx.countDecision(reqID, decision, by.(string), reviewer)
				tx.now = now
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return orgID, userIDs
}
