package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"kycd/seal"
	"kycd/server"
	"kycd/store/storetest"
)

// BenchmarkApplicantCreate is the write path of POST /v1/applicants
// through the real handler, on a real database (KYCD_TEST_ENGINE picks
// it): authentication, validation, the insert and, since issue 23 item
// 13, its audit row, in one transaction.
func BenchmarkApplicantCreate(b *testing.B) {
	st := storetest.Open(b)
	unlimited := 0
	org := storetest.MustOrg(b, st, "bench", &unlimited)
	box, err := seal.New(bytes.Repeat([]byte{7}, seal.KeySize))
	if err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(server.Options{Store: st, Version: "bench", Secrets: box})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	b.Cleanup(hs.Close)
	client := hs.Client()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		req, _ := http.NewRequest("POST", hs.URL+"/v1/applicants",
			bytes.NewReader([]byte(fmt.Sprintf(`{"firstName":"Ada","lastName":"Lovelace %d","email":"ada%d@example.com"}`, i, i))))
		req.Header.Set("Authorization", "Bearer "+org.LiveKey)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 201 {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
}
