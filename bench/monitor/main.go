// Command monitor measures a monitoring re-screen run: it fills a fresh
// database with N monitored AML checks, imports the real OFAC, UN and PEP
// lists (which makes every monitored check due), and times the re-screen
// of all of them through the same code the monitoring job runs, including
// the history rows and events written.
//
//	go run ./bench/monitor [-data DIR] [-checks 100000]
package main

import (
	"context"
	"crypto/rand"
	"encoding/csv"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"kycd/aml"
	"kycd/internal/realdata"
	"kycd/kyc"
	"kycd/screening"
	"kycd/seal"
	"kycd/store"
)

func main() {
	dir := flag.String("data", realdata.Dir(), "shared data folder with lists/ and eval/ (default: found beside the repository)")
	checks := flag.Int("checks", 100000, "monitored checks")
	flag.Parse()
	log.SetFlags(0)
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "kycd-monitor-bench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	st, err := store.Open(ctx, filepath.Join(tmp, "kyc.db"), store.Options{MasterKey: throwawayMasterKey})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	sc, err := screening.NewScreener()
	if err != nil {
		log.Fatal(err)
	}
	svc := aml.New(st, sc, slog.New(slog.DiscardHandler))

	var org *kyc.Organization
	if err := st.InTx(ctx, func(tx *store.Tx) (err error) { org, err = tx.CreateOrganization("bench", ""); return err }); err != nil {
		log.Fatal(err)
	}
	people, err := customers(*dir)
	if err != nil {
		log.Fatal(err)
	}
	// The checks are created before any list is loaded (screened against
	// nothing: failed), the way a new install enrols its customers.
	t0 := time.Now()
	for done := 0; done < *checks; {
		batch := min(500, *checks-done)
		err := st.InTx(ctx, func(tx *store.Tx) error {
			for i := 0; i < batch; i++ {
				p := people[(done+i)%len(people)]
				sub := aml.Subject{FirstName: p[0], LastName: p[1]}
				if p[2] != "" {
					sub.DOB = &p[2]
				}
				res := &aml.Screened{Subject: sub, Threshold: screening.DefaultThreshold, Results: sc.Screen(kyc.Live, screening.Query{Name: p[0] + " " + p[1]}, screening.DefaultThreshold)}
				if _, err := svc.Create(tx, org.ID, kyc.Live, res, true); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
		done += batch
	}
	fmt.Printf("created %d monitored checks in %s\n", *checks, time.Since(t0).Round(time.Millisecond))

	t1 := time.Now()
	for _, spec := range []aml.ImportSpec{
		{Source: "ofac-sdn", Kind: screening.Sanctions, Format: "ofac-csv", Files: []string{
			filepath.Join(*dir, "lists/ofac_sdn_2021-07.csv"), filepath.Join(*dir, "lists/ofac_alt_2021-07.csv"), filepath.Join(*dir, "lists/ofac_add_2021-07.csv")}},
		{Source: "un", Kind: screening.Sanctions, Format: "un-xml", Files: []string{filepath.Join(*dir, "lists/un_consolidated_2026-02-27.xml")}},
		{Source: "us-congress", Kind: screening.PEP, Format: "senzing", Files: []string{filepath.Join(*dir, "lists/opensanctions_us_congress_peps_senzing.jsonl")}},
		{Source: "ftm-sample", Kind: screening.AdverseMedia, Format: "ftm", Files: []string{filepath.Join(*dir, "lists/opensanctions_ftm_sample.jsonl")}},
	} {
		if _, err := aml.Import(ctx, st, spec); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("imported OFAC SDN + UN + PEP + adverse-media sample into the database in %s\n", time.Since(t1).Round(time.Millisecond))

	t2 := time.Now()
	total, batches := 0, 0
	for {
		n, err := svc.RescreenDue(ctx, 256)
		if err != nil {
			log.Fatal(err)
		}
		if n == 0 {
			break
		}
		total += n
		batches++
	}
	took := time.Since(t2)
	fmt.Printf("re-screened %d checks in %d batches in %s: %.0f checks/s on %d cores\n", total, batches,
		took.Round(time.Millisecond), float64(total)/took.Seconds(), runtime.GOMAXPROCS(0))
	_, hits, err := st.FindAMLChecks(ctx, org.ID, kyc.Live, kyc.AMLCheckFilter{Status: kyc.AMLPotentialMatch, Page: 1, Size: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("checks now potential_match: %d\n", hits)
}

// customers reads the labelled customers (first name, last name, dob).
func customers(dir string) ([][3]string, error) {
	var out [][3]string
	for _, f := range []string{"negatives_global_dev.csv", "negatives_us_dev.csv", "positives_un_untreated.csv"} {
		fh, err := os.Open(filepath.Join(dir, "eval", f))
		if err != nil {
			return nil, err
		}
		rows, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		if err != nil {
			return nil, err
		}
		for _, r := range rows[1:] {
			first, last := r[1], r[3]
			if first == "" || last == "" {
				f := strings.Fields(r[0])
				if len(f) < 2 {
					continue
				}
				first, last = strings.Join(f[:len(f)-1], " "), f[len(f)-1]
			}
			dob := ""
			if len(r[5]) == 10 {
				dob = r[5]
			}
			out = append(out, [3]string{first, last, dob})
		}
	}
	return out, nil
}

// throwawayMasterKey encrypts the benchmark's temporary database (and keys
// its audit log) under a random key that dies with the process.
func throwawayMasterKey(bool) (store.Sealer, error) {
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key)
	return seal.New(key)
}
