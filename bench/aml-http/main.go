// Command aml-http measures the latency of POST /v1/aml-checks, a live
// screening with its write, over HTTP on loopback: the real server, store
// and access log on a temporary SQLite database, with the real UN, OFAC and
// PEP lists loaded. One client sends the requests one after another
// (closed loop, one connection), with the names and dates of birth of the
// development customers on no list, so each request screens a name the
// lists do not hold (the common case) and writes one check.
//
//	go run ./bench/aml-http [-n 2000] [-warmup 200]
//
// With -batch N it measures a batch screening of N subjects instead (see
// runBatch):
//
//	go run ./bench/aml-http -batch 10000
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"kycd/aml"
	"kycd/internal/realdata"
	"kycd/kyc"
	"kycd/screening"
	"kycd/seal"
	"kycd/server"
	"kycd/store"
)

func main() {
	dir := flag.String("data", realdata.Dir(), "shared data folder with lists/ and eval/")
	n := flag.Int("n", 2000, "measured requests")
	warmup := flag.Int("warmup", 200, "unmeasured requests first")
	batch := flag.Int("batch", 0, "measure one batch screening of this many subjects instead")
	flag.Parse()
	if *batch > 0 {
		if err := runBatch(*dir, *batch); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := run(*dir, *n, *warmup); err != nil {
		log.Fatal(err)
	}
}

func run(dir string, n, warmup int) error {
	sc, err := loadLists(dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "kycd-aml-http-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	logf, err := os.Create(filepath.Join(tmp, "access.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	logger := slog.New(slog.NewJSONHandler(logf, nil))
	st, err := store.Open(context.Background(), filepath.Join(tmp, "kyc.db"), store.Options{Logger: logger, MasterKey: throwawayMasterKey})
	if err != nil {
		return err
	}
	defer st.Close()
	var key string
	unlimited := 0
	err = st.InTx(context.Background(), func(tx *store.Tx) error {
		org, err := tx.CreateOrganization("aml-bench", "")
		if err != nil {
			return err
		}
		_, key, err = tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: org.ID, Environment: kyc.Live, RPMOverride: &unlimited})
		return err
	})
	if err != nil {
		return err
	}
	srv, err := server.New(server.Options{Store: st, Logger: logger, AML: aml.New(st, sc, logger)})
	if err != nil {
		return err
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	people, err := customers(filepath.Join(dir, "eval/negatives_global_dev.csv"))
	if err != nil {
		return err
	}
	client := ts.Client()
	var lat []time.Duration
	for i := 0; i < warmup+n; i++ {
		p := people[i%len(people)]
		body, _ := json.Marshal(map[string]any{"firstName": p[0], "lastName": p[1], "dob": p[2]})
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/aml-checks", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(t0)
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("%s %s: %d %s", p[0], p[1], resp.StatusCode, b)
		}
		if i >= warmup {
			lat = append(lat, took)
		}
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	pct := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	fmt.Printf("POST /v1/aml-checks, live, UN+OFAC+PEP, %d requests after %d warm-up, one connection, GOMAXPROCS %d\n", n, warmup, runtime.GOMAXPROCS(0))
	fmt.Printf("p50 %s  p90 %s  p99 %s  max %s\n", pct(0.5).Round(time.Microsecond), pct(0.9).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond))
	return nil
}

// loadLists parses and indexes the real lists into a live screener.
func loadLists(dir string) (*screening.Screener, error) {
	sc, err := screening.NewScreener()
	if err != nil {
		return nil, err
	}
	open := func(p string) (*os.File, error) { return os.Open(filepath.Join(dir, p)) }
	f, err := open("lists/un_consolidated_2026-02-27.xml")
	if err != nil {
		return nil, err
	}
	un, err := screening.ParseUN(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	var fs []io.Reader
	for _, p := range []string{"lists/ofac_sdn_2021-07.csv", "lists/ofac_alt_2021-07.csv", "lists/ofac_add_2021-07.csv"} {
		f, err := open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		fs = append(fs, f)
	}
	ofac, err := screening.ParseOFAC(fs[0], fs[1], fs[2])
	if err != nil {
		return nil, err
	}
	f, err = open("lists/opensanctions_us_congress_peps_senzing.jsonl")
	if err != nil {
		return nil, err
	}
	pep, err := screening.ParseSenzing(f, screening.PEP)
	f.Close()
	if err != nil {
		return nil, err
	}
	list := func(id string, k screening.Kind, ents []screening.Entity) *screening.List {
		return &screening.List{Kind: k, Index: screening.BuildIndex(ents), Version: kyc.ListVersionRef{
			ID: id, Source: id, Provider: "bench", EntityCount: len(ents), ImportedAt: "2026-01-01T00:00:00.000Z"}}
	}
	sc.Swap([]*screening.List{list("lsv_un", screening.Sanctions, un), list("lsv_ofac", screening.Sanctions, ofac), list("lsv_pep", screening.PEP, pep)}, "bench")
	return sc, nil
}

// customers reads first name, last name and DOB of the development
// customers on no list.
func customers(path string) ([][3]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.ToLower(h)] = i
	}
	var out [][3]string
	for _, r := range rows[1:] {
		first, last := r[col["first_name"]], r[col["last_name"]]
		if first == "" || last == "" {
			// Listed people have only a full name: its last word is the
			// last name.
			parts := strings.Fields(r[col["full_name"]])
			if len(parts) < 2 {
				continue
			}
			first, last = strings.Join(parts[:len(parts)-1], " "), parts[len(parts)-1]
		}
		dob := r[col["date_of_birth"]]
		if len(dob) != len("2006-01-02") {
			dob = "" // a year alone is not a date of birth the API takes
		}
		out = append(out, [3]string{first, last, dob})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no customers", path)
	}
	return out, nil
}

// throwawayMasterKey encrypts the temporary database under a random key
// that dies with the process.
func throwawayMasterKey(bool) (store.Sealer, error) { return seal.New(runKey) }

var runKey = func() []byte {
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key)
	return key
}()
