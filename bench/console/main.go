// Command console measures the back office's two busiest pages, the review
// queue and the case view, with many requests in the database: it seeds N
// KYC requests through the real lifecycle (portal steps, submission, the
// decision engine without the image models, which sends them to review),
// signs a reviewer in and loads the pages over HTTP, reporting percentiles.
//
//	go run ./bench/console -requests 10000 -gets 2000 -concurrency 4
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kycd/internal/reviewdata"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/seal"
	"kycd/server"
	"kycd/store"
	"kycd/users"
	"kycd/verification"
)

func main() {
	n := flag.Int("requests", 10000, "KYC requests awaiting review in the database")
	gets := flag.Int("gets", 2000, "page loads per page kind")
	conc := flag.Int("concurrency", 4, "page loads at once")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the page loads to this file")
	keep := flag.String("db", "", "database file to keep and reuse: seeded when it has fewer requests (default: a temporary one)")
	flag.Parse()
	cpuProfile = *prof
	if err := run(*n, *gets, *conc, *keep); err != nil {
		log.Fatal(err)
	}
}

// cpuProfile is the -cpuprofile file.
var cpuProfile string

func run(n, gets, conc int, keep string) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kycd-bench-console")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	dbPath := filepath.Join(dir, "kyc.db")
	// A kept database keeps its master key beside it (benchmark data only).
	master := make([]byte, seal.KeySize)
	if keep != "" {
		dbPath = keep
		if b, err := os.ReadFile(keep + ".bench-key"); err == nil && len(b) == seal.KeySize {
			master = b
		} else {
			_, _ = rand.Read(master)
			if err := os.WriteFile(keep+".bench-key", master, 0o600); err != nil {
				return err
			}
		}
	} else {
		_, _ = rand.Read(master)
	}
	st, err := store.Open(ctx, dbPath, store.Options{MasterKey: func(bool) (store.Sealer, error) { return seal.New(master) }})
	if err != nil {
		return err
	}
	defer st.Close()
	var org *kyc.Organization
	if orgs, err := st.FindOrganizations(ctx); err == nil && len(orgs) > 0 {
		org = orgs[0]
	} else if err := st.InTx(ctx, func(tx *store.Tx) (err error) {
		org, err = tx.CreateOrganization("Bench Ltd", "")
		return err
	}); err != nil {
		return err
	}
	amlSvc, engine, err := reviewdata.Engine(ctx, st, dir, "bench-sanctions", []reviewdata.Listed{
		{Reference: "B-1", Name: "Viktor Petrenko", DOB: "1961-04-12", Country: "RU", Reason: "Bench listing"}}, time.Now)
	if err != nil {
		return err
	}
	kycSvc := verification.New(st, engine, "http://bench/portal", nil)
	runner := jobs.New(jobs.Options{Store: st, Concurrency: 2 * runtime.GOMAXPROCS(0)})
	kycSvc.RegisterJobs(runner)

	start := time.Now()
	_, have, err := st.FindKYCRequests(ctx, org.ID, kyc.Live, kyc.KYCAwaitingReview, 1, 1)
	if err != nil {
		return err
	}
	if have < n {
		if err := seed(ctx, st, kycSvc, runner, org.ID, n-have); err != nil {
			return err
		}
	}
	fi, _ := os.Stat(dbPath)
	fmt.Printf("%d requests awaiting review (%d seeded in %s; database %.1f MB)\n", max(n, have), max(0, n-have), time.Since(start).Round(time.Second), float64(fi.Size())/1e6)

	usvc := users.New(users.Options{Store: st})
	var link string
	email := fmt.Sprintf("rev%d@bench.example", time.Now().UnixNano())
	if err := st.InTx(ctx, func(tx *store.Tx) (err error) {
		_, link, err = usvc.Invite(tx, org.ID, users.InviteInput{Email: email, Name: "Rev Bench", Role: kyc.RoleReviewer},
			users.Actor{Type: kyc.ActorSystem, ID: "bench"})
		return err
	}); err != nil {
		return err
	}
	u, _ := url.Parse(link)
	const pw = "plover quartz meadow 7391"
	if _, err := usvc.SetPassword(ctx, u.Query().Get("token"), pw, pw); err != nil {
		return err
	}
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	defer hs.Close()
	api, err := server.New(server.Options{Store: st, BaseURL: hs.URL, KYC: kycSvc, AML: amlSvc, Users: usvc, Version: "bench"})
	if err != nil {
		return err
	}
	mux.Handle("/", api.Handler())
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Transport: &http.Transport{MaxIdleConnsPerHost: conc}}
	res, err := client.PostForm(hs.URL+"/console/login", url.Values{"email": {email}, "password": {pw}})
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.Request.URL.Path != "/console/" && res.Request.URL.Path != "/console/live/queue" {
		return fmt.Errorf("sign-in ended at %s (%d)", res.Request.URL, res.StatusCode)
	}
	ids, err := caseIDs(ctx, st, org.ID)
	if err != nil {
		return err
	}
	fmt.Printf("GOMAXPROCS %d, %d page loads per kind, %d at once\n", runtime.GOMAXPROCS(0), gets, conc)
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	pages := max(1, n/50)
	measure("queue (50 per page, any page)", gets, conc, func(i int) string {
		q := []string{"", "claim=unclaimed&", "reason=SCREENING_FAILED&", "reason=SANCTIONS_MATCH&"}[i%4]
		return fmt.Sprintf("%s/console/live/queue?%spage=%d", hs.URL, q, 1+(i*7919)%pages)
	}, client)
	measure("queue, first page", gets, conc, func(i int) string {
		return hs.URL + "/console/live/queue?" + []string{"", "claim=unclaimed", "reason=SCREENING_FAILED", "reason=SANCTIONS_MATCH"}[i%4]
	}, client)
	measure("case view", gets, conc, func(i int) string {
		return hs.URL + "/console/live/cases/" + ids[(i*7919)%len(ids)]
	}, client)
	return nil
}

// seed submits n requests with a few workers (group commit shares their
// fsyncs) while the runner decides them.
func seed(ctx context.Context, st *store.Store, svc *verification.Service, runner *jobs.Runner, orgID string, n int) error {
	first := []string{"Anna", "Ben", "Chloe", "David", "Emma", "Felix", "Greta", "Hugo", "Ines", "Jonas", "Karin", "Lukas", "Mia", "Noah", "Olga", "Paul"}
	last := []string{"Schmidt", "Meyer", "Wagner", "Becker", "Hoffmann", "Koch", "Richter", "Klein", "Wolf", "Neumann", "Petrenko", "Braun"}
	rctx, stop := context.WithCancel(ctx)
	runnerDone := make(chan error, 1)
	go func() { runnerDone <- runner.Start(rctx) }()
	defer func() { stop(); <-runnerDone }()
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Pointer[error]
	for w := 0; w < 8; w++ {
		wg.Go(func() {
			for firstErr.Load() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				p := reviewdata.Person{FirstName: first[i%len(first)], LastName: last[(i/len(first))%len(last)],
					DOB: fmt.Sprintf("19%02d-%02d-%02d", 50+i%50, 1+i%12, 1+i%28), Country: "DE", DocNumber: fmt.Sprintf("B%08d", i),
					IP: fmt.Sprintf("198.51.%d.%d", i/250%250, i%250)}
				if _, err := reviewdata.Submit(ctx, st, svc, orgID, kyc.Live, p); err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	if e := firstErr.Load(); e != nil {
		return *e
	}
	for {
		_, total, err := st.FindKYCRequests(ctx, orgID, kyc.Live, kyc.KYCAwaitingReview, 1, 1)
		if err != nil || total >= n {
			return err
		}
		select {
		case err := <-runnerDone:
			return fmt.Errorf("runner stopped: %v", err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func caseIDs(ctx context.Context, st *store.Store, orgID string) ([]string, error) {
	var ids []string
	for page := 1; ; page++ {
		list, _, err := st.FindKYCRequests(ctx, orgID, kyc.Live, kyc.KYCAwaitingReview, page, 100)
		if err != nil {
			return nil, err
		}
		for _, r := range list {
			ids = append(ids, r.ID)
		}
		if len(list) < 100 {
			return ids, nil
		}
	}
}

// measure loads count pages, conc at a time, and prints percentiles.
func measure(name string, count, conc int, urlOf func(int) string, client *http.Client) {
	durs := make([]time.Duration, count)
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= count {
					return
				}
				t0 := time.Now()
				res, err := client.Get(urlOf(i))
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				durs[i] = time.Since(t0)
				if err != nil || res.StatusCode != http.StatusOK {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	total := time.Since(start)
	slices.Sort(durs)
	pct := func(p float64) time.Duration {
		return durs[min(len(durs)-1, int(p*float64(len(durs))))].Round(100 * time.Microsecond)
	}
	fmt.Printf("%-32s p50 %-8s p95 %-8s p99 %-8s max %-8s %.0f pages/s, %d failed\n", name, pct(0.50), pct(0.95), pct(0.99),
		durs[len(durs)-1].Round(100*time.Microsecond), float64(count)/total.Seconds(), failed.Load())
}
