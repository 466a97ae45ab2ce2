package aml

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"kycd/internal/realdata"
	"kycd/screening"
	"kycd/store/storetest"
)

// TestOpenSanctionsUpdate: the OpenSanctions datasets are downloaded from
// <base>/<dataset>/entities.ftm.json with the API key in the
// Authorization header and imported with the kind each stands for; a
// refused key is an error that says so.
func TestOpenSanctionsUpdate(t *testing.T) {
	sample, err := os.ReadFile(realdata.Path(t, "lists/opensanctions_ftm_sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "ApiKey secret-key" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		paths = append(paths, r.URL.Path)
		w.Write(sample)
	}))
	defer srv.Close()

	srcs, err := OpenSanctionsSources(srv.URL+"/os/", "secret-key", []string{"sanctions", "debarment", "crime"})
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Open(t)
	outs, err := Update(t.Context(), st, srv.Client(), srcs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]screening.Kind{"opensanctions-sanctions": screening.Sanctions, "opensanctions-debarment": screening.AdverseMedia, "opensanctions-crime": screening.AdverseMedia}
	for _, o := range outs {
		v := o.Result.Version
		if string(want[o.Source]) != v.Kind || v.Format != "ftm" || v.EntityCount == 0 || !strings.HasPrefix(v.Provider, "OpenSanctions") {
			t.Errorf("%s: version %+v", o.Source, v)
		}
	}
	if strings.Join(paths, " ") != "/os/sanctions/entities.ftm.json /os/debarment/entities.ftm.json /os/crime/entities.ftm.json" {
		t.Errorf("downloaded %v", paths)
	}

	bad, _ := OpenSanctionsSources(srv.URL+"/os", "wrong", []string{"sanctions"})
	if _, err := Update(t.Context(), st, srv.Client(), bad, nil); err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "API key") {
		t.Errorf("wrong key: %v", err)
	}
	if _, err := OpenSanctionsSources("", "", []string{"default"}); err == nil || !strings.Contains(err.Error(), "sanctions, peps, crime, debarment") {
		t.Errorf("unknown dataset: %v", err)
	}
	def, _ := OpenSanctionsSources("", "", []string{"debarment"})
	if def[0].URLs[0] != DefaultOpenSanctionsBaseURL+"/debarment/entities.ftm.json" || def[0].Header != nil || def[0].Kind != screening.AdverseMedia {
		t.Errorf("default source: %+v", def[0])
	}
}
