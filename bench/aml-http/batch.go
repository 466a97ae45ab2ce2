package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"kycd/aml"
	"kycd/kyc"
	"kycd/screening"
	"kycd/server"
	"kycd/store"
)

// runBatch measures a batch screening end to end as an integrator sees
// it: n subjects (the development customers on no list and the UN
// positives, repeated) sent as one CSV to POST /v1/aml-checks/batch, the
// aml.batch job's work (RunBatch, what the job runner calls), and
// GET /v1/aml-batches/{id} polled until it says completed. The time is
// from sending the upload to the first completed answer; every check,
// screening, audit row, usage count and event is written on a real
// SQLite file, against UN + OFAC + PEP.
func runBatch(dir string, n int) error {
	tmp, err := os.MkdirTemp("", "kycd-aml-batch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	st, err := store.Open(context.Background(), filepath.Join(tmp, "kyc.db"), store.Options{Logger: logger, MasterKey: throwawayMasterKey})
	if err != nil {
		return err
	}
	defer st.Close()
	var key string
	var org *kyc.Organization
	unlimited := 0
	err = st.InTx(context.Background(), func(tx *store.Tx) error {
		if org, err = tx.CreateOrganization("aml-batch-bench", ""); err != nil {
			return err
		}
		_, key, err = tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: org.ID, Environment: kyc.Live, RPMOverride: &unlimited})
		return err
	})
	if err != nil {
		return err
	}
	// The batch job screens against the lists the store holds (their
	// versions are recorded on each check), so they are imported, not
	// swapped into the screener as the single-check bench does.
	for _, spec := range []aml.ImportSpec{
		{Source: "un", Kind: screening.Sanctions, Format: "un-xml", Files: []string{filepath.Join(dir, "lists/un_consolidated_2026-02-27.xml")}},
		{Source: "ofac-sdn", Kind: screening.Sanctions, Format: "ofac-csv", Files: []string{filepath.Join(dir, "lists/ofac_sdn_2021-07.csv"),
			filepath.Join(dir, "lists/ofac_alt_2021-07.csv"), filepath.Join(dir, "lists/ofac_add_2021-07.csv")}},
		{Source: "us-congress-pep", Kind: screening.PEP, Format: "senzing", Files: []string{filepath.Join(dir, "lists/opensanctions_us_congress_peps_senzing.jsonl")}},
	} {
		if _, err := aml.Import(context.Background(), st, spec); err != nil {
			return fmt.Errorf("import %s: %w", spec.Source, err)
		}
	}
	sc, err := screening.NewScreener()
	if err != nil {
		return err
	}
	svc := aml.New(st, sc, logger)
	if err := svc.Refresh(context.Background()); err != nil {
		return err
	}
	srv, err := server.New(server.Options{Store: st, Logger: logger, AML: svc})
	if err != nil {
		return err
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	people, err := customers(filepath.Join(dir, "eval/negatives_global_dev.csv"))
	if err != nil {
		return err
	}
	listed, err := customers(filepath.Join(dir, "eval/positives_un_untreated.csv"))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"firstName", "lastName", "dob"})
	for i := range n {
		p := people[i%len(people)]
		if i%10 == 9 { // one subject in ten is a listed person
			p = listed[i%len(listed)]
		}
		_ = w.Write([]string{p[0], p[1], p[2]})
	}
	w.Flush()

	call := func(method, path string, body []byte, ct string) (map[string]any, error) {
		req, _ := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			return nil, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		var m map[string]any
		return m, json.Unmarshal(b, &m)
	}
	t0 := time.Now()
	b, err := call(http.MethodPost, "/v1/aml-checks/batch", buf.Bytes(), "text/csv")
	if err != nil {
		return err
	}
	accepted := time.Since(t0)
	id := b["id"].(string)
	done := make(chan error, 1)
	go func() { done <- svc.RunBatch(context.Background(), org.ID, kyc.Live, id) }()
	var last map[string]any
	for {
		if last, err = call(http.MethodGet, "/v1/aml-batches/"+id, nil, ""); err != nil {
			return err
		}
		if last["status"] == "completed" {
			break
		}
		select {
		case err := <-done:
			if err != nil {
				return err
			}
			done <- nil
		case <-time.After(200 * time.Millisecond):
		}
	}
	took := time.Since(t0)
	fmt.Printf("POST /v1/aml-checks/batch (CSV, %d subjects, %d bytes), live, UN+OFAC+PEP, GOMAXPROCS %d\n", n, buf.Len(), runtime.GOMAXPROCS(0))
	fmt.Printf("accepted in %s; completed in %s (%.0f subjects/s): screened %v, failed %v, potential matches %v\n",
		accepted.Round(time.Millisecond), took.Round(time.Millisecond), float64(n)/took.Seconds(), last["screened"], last["failed"], last["potentialMatches"])
	return nil
}
