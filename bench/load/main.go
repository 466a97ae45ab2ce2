// Command load measures kycd's HTTP API on this machine: it starts the real
// server (same handler, store and logging as kycd serve) on a temporary
// database and drives it over loopback.
//
// Two kinds of run, for each of three requests (POST /v1/applicants with a
// fresh Idempotency-Key, an idempotent replay, GET /v1/applicants/{id}):
//
//   - saturation: N connections send back to back for -duration; reports
//     requests/s and latency percentiles;
//   - constant rate: requests are sent at fixed arrival times whatever the
//     server's speed (open loop), and latency is measured from the time each
//     request was due, so a stalled server cannot hide its stall
//     (no coordinated omission).
//
// With -soak it also runs creates at a constant rate for that long while
// sampling the WAL file's size every second, to show checkpoints keep it
// bounded.
//
//	go run ./bench/load -duration 10s -rate 500 -soak 5m
//
// On PostgreSQL, against one or several instances (each a server with its
// own store on the same database, in this process), on an empty database:
//
//	go run ./bench/load -db postgres://kycd:kycd@localhost/kycd_bench -instances 2
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kycd/kyc"
	"kycd/seal"
	"kycd/server"
	"kycd/store"
)

func main() {
	duration := flag.Duration("duration", 10*time.Second, "length of each measured run")
	warmup := flag.Duration("warmup", 2*time.Second, "unmeasured warm-up before each run")
	conns := flag.Int("conns", 32, "connections in saturation runs")
	rate := flag.Int("rate", 500, "arrival rate of the constant-rate create run (requests/s)")
	soak := flag.Duration("soak", 0, "also run creates at -rate for this long, sampling the WAL size")
	logTo := flag.String("log", "file", "server access log: file (JSON lines in the temp dir, as in production) or discard")
	keep := flag.Bool("keep", false, "keep the temporary database")
	only := flag.String("only", "", "run only the saturation run whose name contains this (e.g. GET) and skip the rest")
	ckptEvery := flag.Duration("checkpoint-every", 0, "background checkpoint interval (0: the store's default)")
	skipSat := flag.Bool("skip-saturation", false, "run only the constant-rate (and soak) runs")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the saturation runs to this file")
	dbFlag := flag.String("db", "", "database: empty for a new SQLite file in a temp dir, or a postgres:// URL of an empty database")
	instances := flag.Int("instances", 1, "kycd instances (servers with their own store) on the database, requests round-robin; more than 1 needs -db postgres://")
	flag.Parse()
	if *instances > 1 && !store.IsPostgres(*dbFlag) {
		log.Fatal("-instances > 1 needs -db postgres://…: a fleet shares a PostgreSQL database")
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	dir, err := os.MkdirTemp("", "kycd-load-")
	if err != nil {
		log.Fatal(err)
	}
	if !*keep {
		defer os.RemoveAll(dir)
	}
	b, err := newBench(dir, *dbFlag, *instances, *logTo, *ckptEvery)
	if err != nil {
		log.Fatal(err)
	}
	defer b.close()

	fmt.Printf("kycd load benchmark: %d CPUs, GOMAXPROCS %d, %s, database %s (%s), %d instance(s)\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(),
		b.store.Path(), b.store.Engine(), len(b.bases))
	fmt.Printf("saturation: %d connections, %s per run after %s warm-up; server log: %s\n\n", *conns, *duration, *warmup, *logTo)

	seedID := b.createOne()
	replayKey := "replay-key"
	b.send(b.createReq(replayKey)) // store the response once

	reqs := []struct {
		name string
		make func() *http.Request
	}{
		{"POST /v1/applicants (new Idempotency-Key)", func() *http.Request { return b.createReq("") }},
		{"POST /v1/applicants (idempotent replay)", func() *http.Request { return b.createReq(replayKey) }},
		{"GET /v1/applicants/{id}", func() *http.Request { return b.getReq(seedID) }},
	}
	fmt.Printf("%-44s %10s %9s %9s %9s %9s %7s\n", "saturation", "req/s", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "errors")
	var creates, reads float64
	for i, rq := range reqs {
		if *skipSat || (*only != "" && !strings.Contains(rq.name, *only)) {
			continue
		}
		b.saturate(rq.make, *conns, *warmup)
		res := b.saturate(rq.make, *conns, *duration)
		fmt.Printf("%-44s %10.0f %9.2f %9.2f %9.2f %9.2f %7d\n", rq.name, res.rps, res.p(50), res.p(99), res.p(99.9), res.max(), res.errors)
		switch i {
		case 0:
			creates = res.rps
		case 2:
			reads = res.rps
		}
	}
	if *only != "" {
		return
	}
	if !*skipSat {
		fmt.Printf("\nagainst PocketBase on this kind of machine (≈2,500 creates/s, ≈6,200 reads/s): creates ×%.2f, reads ×%.2f\n", creates/2500, reads/6200)
		fmt.Printf("goals: ≥3,000 creates/s (%s), ≥12,000 reads/s (%s)\n", verdict(creates >= 3000), verdict(reads >= 12000))
	}
	fmt.Println()

	fmt.Printf("%-44s %10s %9s %9s %9s %9s %7s\n", "constant rate (latency from due time)", "req/s", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "errors")
	b.constant(reqs[0].make, *rate, *warmup)
	res := b.constant(reqs[0].make, *rate, *duration)
	fmt.Printf("%-44s %10.0f %9.2f %9.2f %9.2f %9.2f %7d\n", fmt.Sprintf("POST /v1/applicants at %d/s", *rate), res.rps, res.p(50), res.p(99), res.p(99.9), res.max(), res.errors)
	fmt.Printf("goal at 500/s: p99 ≤ 10 ms (%s)\n", verdict(*rate != 500 || res.p(99) <= 10))
	st := b.store.Stats()
	fmt.Printf("\ngroup commit: %d write transactions in %d commits (%.1f per fsync on average)\n", st.UseCases, st.Commits, float64(st.UseCases)/float64(max(st.Commits, 1)))

	if *soak > 0 {
		b.soak(reqs[0].make, *rate, *soak)
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

type bench struct {
	dir, dbPath string
	store       *store.Store   // the first instance's
	stores      []*store.Store // every instance's
	hs          []*http.Server
	bases       []string // one per instance, taken round-robin
	rr          atomic.Uint64
	key         string
	client      *http.Client
	seq         atomic.Int64
	logFile     *os.File
}

func newBench(dir, db string, instances int, logTo string, ckptEvery time.Duration) (*bench, error) {
	b := &bench{dir: dir, dbPath: filepath.Join(dir, "kyc.db")}
	if db != "" {
		b.dbPath = db
	}
	logger := slog.New(slog.DiscardHandler)
	if logTo == "file" {
		f, err := os.Create(filepath.Join(dir, "access.log"))
		if err != nil {
			return nil, err
		}
		b.logFile = f
		logger = slog.New(slog.NewJSONHandler(f, nil))
	}
	st, err := store.Open(context.Background(), b.dbPath, store.Options{Logger: logger, CheckpointEvery: ckptEvery, MasterKey: throwawayMasterKey})
	if err != nil {
		return nil, err
	}
	b.store = st
	unlimited := 0
	err = st.InTx(context.Background(), func(tx *store.Tx) error {
		org, err := tx.CreateOrganization("load", "")
		if err != nil {
			return err
		}
		_, b.key, err = tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: org.ID, Environment: kyc.Sandbox, RPMOverride: &unlimited})
		return err
	})
	if err != nil {
		return nil, err
	}
	b.stores = []*store.Store{st}
	for range instances - 1 {
		st, err := store.Open(context.Background(), b.dbPath, store.Options{Logger: logger, MasterKey: throwawayMasterKey})
		if err != nil {
			return nil, err
		}
		b.stores = append(b.stores, st)
	}
	for _, st := range b.stores {
		srv, err := server.New(server.Options{Store: st, Logger: logger})
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		b.bases = append(b.bases, "http://"+ln.Addr().String())
		hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
		b.hs = append(b.hs, hs)
		go hs.Serve(ln)
	}
	b.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096, IdleConnTimeout: time.Minute}}
	return b, nil
}

// base is the next instance's URL, round-robin.
func (b *bench) base() string { return b.bases[int(b.rr.Add(1))%len(b.bases)] }

func (b *bench) close() {
	for _, hs := range b.hs {
		hs.Close()
	}
	for _, st := range b.stores {
		st.Close()
	}
	if b.logFile != nil {
		b.logFile.Close()
	}
}

var createBody = []byte(`{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com","phone":"+447700900123","dob":"1990-12-10","country":"GB","metadata":{"plan":"gold"}}`)

func (b *bench) createReq(key string) *http.Request {
	if key == "" {
		key = fmt.Sprintf("load-%d", b.seq.Add(1))
	}
	req, _ := http.NewRequest("POST", b.base()+"/v1/applicants", bytes.NewReader(createBody))
	req.Header.Set("Authorization", "Bearer "+b.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	return req
}

func (b *bench) getReq(id string) *http.Request {
	req, _ := http.NewRequest("GET", b.base()+"/v1/applicants/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+b.key)
	return req
}

// send performs one request and reports whether it got a 2xx.
func (b *bench) send(req *http.Request) bool {
	res, err := b.client.Do(req)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode/100 == 2
}

func (b *bench) createOne() string {
	res, err := b.client.Do(b.createReq(""))
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var a struct{ ID string }
	if res.StatusCode != 201 || json.Unmarshal(body, &a) != nil {
		log.Fatalf("seed create: %d %s", res.StatusCode, body)
	}
	return a.ID
}

// result holds the latencies (ms) of one run.
type result struct {
	lat    []float64
	rps    float64
	errors int
}

func (r *result) p(q float64) float64 {
	if len(r.lat) == 0 {
		return 0
	}
	i := int(float64(len(r.lat)-1) * q / 100)
	return r.lat[i]
}

func (r *result) max() float64 {
	if len(r.lat) == 0 {
		return 0
	}
	return r.lat[len(r.lat)-1]
}

func finish(lat [][]float64, errs int, elapsed time.Duration) *result {
	var all []float64
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Float64s(all)
	return &result{lat: all, errors: errs, rps: float64(len(all)) / elapsed.Seconds()}
}

// saturate runs conns closed loops for d.
func (b *bench) saturate(mk func() *http.Request, conns int, d time.Duration) *result {
	lat := make([][]float64, conns)
	var errs atomic.Int64
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range conns {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if !b.send(mk()) {
					errs.Add(1)
					continue
				}
				lat[c] = append(lat[c], float64(time.Since(t0).Microseconds())/1000)
			}
		})
	}
	wg.Wait()
	return finish(lat, int(errs.Load()), time.Since(start))
}

// constant sends rate requests a second for d, each at its due time, each
// on its own goroutine, and measures latency from the due time.
func (b *bench) constant(mk func() *http.Request, rate int, d time.Duration) *result {
	n := int(d.Seconds() * float64(rate))
	interval := time.Second / time.Duration(rate)
	lat := make([]float64, n)
	ok := make([]bool, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		wg.Go(func() {
			ok[i] = b.send(mk())
			lat[i] = float64(time.Since(due).Microseconds()) / 1000
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var good []float64
	errs := 0
	for i := range n {
		if ok[i] {
			good = append(good, lat[i])
		} else {
			errs++
		}
	}
	return finish([][]float64{good}, errs, elapsed)
}

// soak runs creates at rate for d and samples the WAL size every second.
func (b *bench) soak(mk func() *http.Request, rate int, d time.Duration) {
	fmt.Printf("\nsoak: POST /v1/applicants at %d/s for %s, WAL size sampled every second\n", rate, d)
	stop := make(chan struct{})
	var maxWAL int64
	var samples []int64
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				fi, err := os.Stat(b.dbPath + "-wal")
				if err == nil {
					samples = append(samples, fi.Size())
					maxWAL = max(maxWAL, fi.Size())
				}
			}
		}
	}()
	res := b.constant(mk, rate, d)
	close(stop)
	db, _ := os.Stat(b.dbPath)
	last := int64(0)
	if len(samples) > 0 {
		last = samples[len(samples)-1]
	}
	fmt.Printf("requests %d (%.0f/s), p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms, errors %d\n",
		len(res.lat), res.rps, res.p(50), res.p(99), res.p(99.9), res.max(), res.errors)
	fmt.Printf("checkpoints finished on the commit loop: %d\n", b.store.Stats().WALRestarts)
	fmt.Printf("WAL: max %.1f MiB, last %.1f MiB over %d samples; database file %.1f MiB\n",
		float64(maxWAL)/(1<<20), float64(last)/(1<<20), len(samples), float64(db.Size())/(1<<20))
}

// throwawayMasterKey encrypts the benchmark's temporary database (and keys
// its audit log) under a random key that dies with the process.
// throwawayMasterKey is one random key per run, shared by the instances.
func throwawayMasterKey(bool) (store.Sealer, error) {
	return seal.New(runKey)
}

var runKey = func() []byte {
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key)
	return key
}()
