package aml

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"kycd/jobs"
	"kycd/store"
	"kycd/store/storetest"
)

// listServer is a local publisher of list files: each path answers with
// the body and status set last, so a test can change what it publishes.
type listServer struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string]served
}

type served struct {
	status  int    // 0 = 200
	body    string //
	chunked bool   // send without Content-Length, as a streaming server does
}

func newListServer(t *testing.T) *listServer {
	s := &listServer{files: map[string]served{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		f, ok := s.files[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		if f.status != 0 {
			w.WriteHeader(f.status)
		}
		if f.chunked {
			w.(http.Flusher).Flush() // headers go out before the length is known
		}
		fmt.Fprint(w, f.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *listServer) set(path string, f served) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = f
}

// publish serves an OFAC SDN trio with n people and a UN list with m.
func (s *listServer) publish(n, m int) {
	s.set("/ofac/sdn.csv", served{body: sdnCSV(n)})
	s.set("/ofac/alt.csv", served{body: "100,1,\"aka\",\"TESTOFF, Ivan\",-0- \n"})
	s.set("/ofac/add.csv", served{body: "100,1,-0- ,\"Moscow\",\"Russia\",-0- \n"})
	s.set("/un/consolidated.xml", served{body: unXML(m)})
}

// sources are the OFAC SDN and UN sources at the test server, built the
// way production builds them.
func (s *listServer) sources() []RemoteSource {
	var out []RemoteSource
	for _, src := range OfficialSources(s.URL+"/ofac", s.URL+"/un/consolidated.xml") {
		if src.Source != "ofac-consolidated" {
			out = append(out, src)
		}
	}
	return out
}

func sdnCSV(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,\"TESTOV, Ivan %c\",\"individual\",\"SDGT\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"DOB 1960.\"\r\n", 100+i, 'A'+i)
	}
	return b.String() + "\x1a\r\n" // OFAC ends its files with a Ctrl-Z line
}

func unXML(n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<CONSOLIDATED_LIST dateGenerated=\"2026-02-27T00:00:00Z\"><INDIVIDUALS>\n")
	for i := range n {
		fmt.Fprintf(&b, "<INDIVIDUAL><DATAID>%d</DATAID><FIRST_NAME>ABDUL</FIRST_NAME><SECOND_NAME>TEST %c</SECOND_NAME>"+
			"<UN_LIST_TYPE>Al-Qaida</UN_LIST_TYPE><REFERENCE_NUMBER>QDi.%d</REFERENCE_NUMBER>"+
			"<INDIVIDUAL_ALIAS><QUALITY>Good</QUALITY><ALIAS_NAME>Abu Test %c</ALIAS_NAME></INDIVIDUAL_ALIAS></INDIVIDUAL>\n", 1000+i, 'A'+i, i, 'A'+i)
	}
	b.WriteString("</INDIVIDUALS><ENTITIES/></CONSOLIDATED_LIST>\n")
	return b.String()
}

// active returns the active version of each source.
func active(t *testing.T, st *store.Store) map[string]*store.ListVersion {
	t.Helper()
	vs, err := st.FindListVersions(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*store.ListVersion{}
	for _, v := range vs {
		m[v.Source] = v
	}
	return m
}

// TestUpdate: the official sources are downloaded and imported; the same
// files again are unchanged; a source whose download or parse fails keeps
// its active version while the other source still updates.
func TestUpdate(t *testing.T) {
	st, srv := storetest.Open(t), newListServer(t)
	srv.publish(2, 3)
	srcs := srv.sources()

	outs, err := Update(t.Context(), st, srv.Client(), srcs, nil)
	if err != nil {
		t.Fatalf("first update: %v", err)
	}
	if len(outs) != 2 || outs[0].Result.Unchanged || outs[1].Result.Unchanged {
		t.Fatalf("first update outcomes: %+v", outs)
	}
	if got := outs[0].Result.Names; got != 2*1+1 { // two primaries, one alias from alt.csv
		t.Errorf("ofac-sdn names = %d, want 3", got)
	}
	got := active(t, st)
	for src, want := range map[string]struct {
		n                int
		format, provider string
	}{"ofac-sdn": {2, "ofac-csv", "OFAC SDN"}, "un": {3, "un-xml", "UN Security Council Consolidated List"}} {
		v := got[src]
		if v == nil || v.EntityCount != want.n || v.Kind != "sanctions" || v.Format != want.format || v.Provider != want.provider {
			t.Errorf("%s active version = %+v, want %d entities, %s, %s", src, v, want.n, want.format, want.provider)
		}
	}

	outs, err = Update(t.Context(), st, srv.Client(), srcs, nil)
	if err != nil {
		t.Fatalf("second update: %v", err)
	}
	for _, o := range outs {
		if !o.Result.Unchanged || o.Result.Version.ID != got[o.Source].ID {
			t.Errorf("%s: same files again: %+v, want unchanged %s", o.Source, o.Result, got[o.Source].ID)
		}
	}

	big := sdnCSV(20)
	for i, tt := range []struct {
		name    string
		failing string // the source that must fail and keep its version
		breakIt func(srcs []RemoteSource)
		wantErr string
	}{
		{"alt.csv answers 500", "ofac-sdn", func([]RemoteSource) {
			srv.set("/ofac/alt.csv", served{status: 500, body: "oops"})
		}, "500 Internal Server Error"},
		{"sdn.csv missing", "ofac-sdn", func([]RemoteSource) {
			srv.set("/ofac/sdn.csv", served{status: 404})
		}, "404 Not Found"},
		{"UN XML truncated", "un", func([]RemoteSource) {
			x := unXML(5)
			srv.set("/un/consolidated.xml", served{body: x[:len(x)/2]})
		}, "unexpected EOF"},
		{"UN sends an HTML error page with 200", "un", func([]RemoteSource) {
			srv.set("/un/consolidated.xml", served{body: "<html><body>Service unavailable</body></html>"})
		}, "want CONSOLIDATED_LIST"},
		{"sdn.csv over the cap", "ofac-sdn", func(srcs []RemoteSource) {
			srcs[0].maxBytes = int64(len(big) - 1)
			srv.set("/ofac/sdn.csv", served{body: big})
		}, "cap"},
		{"sdn.csv over the cap, streamed without a length", "ofac-sdn", func(srcs []RemoteSource) {
			srcs[0].maxBytes = int64(len(big) - 1)
			srv.set("/ofac/sdn.csv", served{body: big, chunked: true})
		}, "cap"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := active(t, st)
			// The other source publishes a new edition, which must still
			// be imported.
			srv.publish(2, 3)
			if tt.failing == "un" {
				srv.set("/ofac/sdn.csv", served{body: sdnCSV(3 + i)})
			} else {
				srv.set("/un/consolidated.xml", served{body: unXML(4 + i)})
			}
			srcs := srv.sources()
			tt.breakIt(srcs)

			outs, err := Update(t.Context(), st, srv.Client(), srcs, nil)
			if err == nil || !strings.HasPrefix(err.Error(), tt.failing+": ") || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one starting %q and containing %q", err, tt.failing+": ", tt.wantErr)
			}
			after := active(t, st)
			if a, b := after[tt.failing], before[tt.failing]; a == nil || a.ID != b.ID || a.EntityCount != b.EntityCount {
				t.Errorf("%s: active version changed from %+v to %+v", tt.failing, b, a)
			}
			for _, o := range outs {
				if o.Source == tt.failing {
					if o.Err == nil || o.Result != nil {
						t.Errorf("%s outcome = %+v, want the error", o.Source, o)
					}
					continue
				}
				if o.Err != nil || o.Result.Unchanged || after[o.Source].ID == before[o.Source].ID || after[o.Source].ID != o.Result.Version.ID {
					t.Errorf("%s was not updated: %+v (before %s, after %s)", o.Source, o, before[o.Source].ID, after[o.Source].ID)
				}
			}
		})
	}
}

// TestOfficialSources: the defaults are the publishers' addresses, and
// the OFAC files keep base names OFACFiles sorts correctly.
func TestOfficialSources(t *testing.T) {
	srcs := OfficialSources("", "")
	if len(srcs) != 3 || srcs[0].URLs[0] != DefaultOFACBaseURL+"/sdn.csv" || srcs[2].URLs[0] != DefaultUNURL {
		t.Fatalf("defaults: %+v", srcs)
	}
	for _, src := range srcs[:2] {
		var files []string
		for i, u := range src.URLs {
			files = append(files, fmt.Sprintf("/tmp/%d-%s", i, urlBase(u)))
		}
		data := [][]byte{[]byte("p"), []byte("a"), []byte("d")}
		sdn, alt, add, err := OFACFiles(files, data)
		if err != nil || sdn == nil || alt == nil || add == nil {
			t.Fatalf("%s: OFACFiles(%v) = %v", src.Source, files, err)
		}
		for r, want := range map[io.Reader]string{sdn: "p", alt: "a", add: "d"} {
			if b, _ := io.ReadAll(r); string(b) != want {
				t.Errorf("%s: files sorted wrongly: got %q where %q belongs", src.Source, b, want)
			}
		}
	}
	if got := OfficialSources("https://mirror.example/ofac/", "")[1].URLs[0]; got != "https://mirror.example/ofac/consolidated/cons_prim.csv" {
		t.Errorf("mirror URL = %s", got)
	}
}

// TestListsUpdateJob: the daily job, run by the job runner on a fake
// clock, imports the lists, queues the next day's run at 03:00 UTC,
// retries a failed run after 15 minutes, and restarts add no duplicate.
func TestListsUpdateJob(t *testing.T) {
	st, clock, srv := storetest.Open(t), &storetest.Clock{}, newListServer(t)
	st.Now = clock.Now // 2026-01-02T03:04:05Z: after today's 03:00
	srv.publish(2, 3)
	r := jobs.New(jobs.Options{Store: st, Now: clock.Now})
	RegisterListUpdates(r, st, srv.Client(), srv.sources(), nil)
	for range 2 { // two starts the same day
		if err := ScheduleListUpdates(t.Context(), st); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := r.RunOnce(t.Context()); err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v; want one run at once", n, err)
	}
	if got := active(t, st); got["ofac-sdn"] == nil || got["un"] == nil || got["un"].EntityCount != 3 {
		t.Fatalf("after the first run: %+v", got)
	}
	tomorrow := time.Date(2026, 1, 3, 3, 0, 0, 0, time.UTC)
	pending, err := st.FindJobs(t.Context(), KindListsUpdate, "pending")
	if err != nil || len(pending) != 1 || !pending[0].RunAt.Equal(tomorrow) {
		t.Fatalf("next run: %+v, %v; want one at %s", pending, err, tomorrow)
	}
	if err := ScheduleListUpdates(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	if n, _ := r.RunOnce(t.Context()); n != 0 {
		t.Fatalf("a restart the same day ran %d more updates", n)
	}

	// Tomorrow the UN site is down: the run fails, keeps the old UN list,
	// queues the day after, and retries 15 minutes later.
	unBefore := active(t, st)["un"]
	srv.set("/un/consolidated.xml", served{status: 503})
	srv.set("/ofac/sdn.csv", served{body: sdnCSV(4)})
	clock.Advance(tomorrow.Sub(clock.Now()))
	if n, _ := r.RunOnce(t.Context()); n != 1 {
		t.Fatalf("tomorrow: %d runs", n)
	}
	got := active(t, st)
	if got["un"].ID != unBefore.ID || got["ofac-sdn"].EntityCount != 4 {
		t.Fatalf("after a partly failed run: un %+v (was %s), ofac-sdn %+v", got["un"], unBefore.ID, got["ofac-sdn"])
	}
	pending, _ = st.FindJobs(t.Context(), KindListsUpdate, "pending")
	if len(pending) != 2 || !pending[0].RunAt.Equal(tomorrow.Add(15*time.Minute)) || !pending[1].RunAt.Equal(tomorrow.Add(24*time.Hour)) {
		t.Fatalf("after a failed run, pending = %+v; want the retry at 03:15 and the next day at 03:00", pending)
	}
	srv.publish(4, 5)
	clock.Advance(15 * time.Minute)
	if n, _ := r.RunOnce(t.Context()); n != 1 {
		t.Fatalf("retry: %d runs", n)
	}
	if got := active(t, st)["un"]; got.ID == unBefore.ID || got.EntityCount != 5 {
		t.Fatalf("the retry did not update un: %+v", got)
	}
}
