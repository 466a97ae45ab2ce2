// Command decide measures submission to decision end to end: it runs the
// real kycd (cmd.Main serve, the same wiring as kycd serve: default
// policy, the processing job, real lists from the shared data when
// present) on a temporary SQLite database and drives N KYC requests
// through the API and the portal's own endpoints as the applicant's page
// does:
//
//   - the API creates the request for the document's holder;
//   - a document camera session is opened and the shared real passport
//     photo (a camera photo with an MRZ) is posted with its nonce;
//   - a paced liveness session is answered step by step with the shared
//     head-movement footage relit by the colour the server reveals for
//     each step (internal/livefootage, as the portal's liveness tests do);
//     a session the footage cannot answer (a movement it lacks) fails and
//     another is opened, as the page's retry does;
//   - the page submits.
//
// Every request is prepared first; then each is submitted alone and the
// time from sending the submit call to the decision being stored (the
// request's status leaving submitted, polled every 5 ms) is measured, so
// the decisions do not compete with the sessions' analysis. The server's
// own submittedAt→decidedAt is reported beside it. -cpuprofile profiles
// the submit phase only, which gives each stage's share of the decision
// (the engine records no timings of its own).
//
//	go run ./bench/decide -n 10 -env live -cpuprofile /tmp/decide.prof
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"kycd/cmd"
	"kycd/internal/livefootage"
	"kycd/internal/realdata"
	"kycd/kyc"
	"kycd/seal"
	"kycd/store"
)

func main() {
	n := flag.Int("n", 10, "KYC requests to submit")
	env := flag.String("env", "live", "environment of the API key: live or sandbox")
	docName := flag.String("doc", "doc_td3_lux_passport_camera_photo.jpg", "shared document photo (images/) posted as the passport's front")
	typed := flag.String("typed", `{"documentType":"passport","issuingCountry":"LU","documentNumber":"S998527","expiryDate":"2011-08-08"}`, "the document details the applicant types (the portal's form)")
	holder := flag.String("holder", `{"firstName":"Ketty","lastName":"Maus","dob":"1978-06-20","country":"LU"}`, "the applicant, as the API takes it (the document's holder)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the submit phase (the decisions) to this file")
	verbose := flag.Bool("v", false, "print each liveness session's verdict")
	stageReps := flag.Int("stages", 5, "then time each pixel stage alone this many times (0: not)")
	lists := flag.Bool("lists", true, "import the shared UN, OFAC, PEP and adverse-media lists when present")
	flag.Parse()
	if *env != "live" && *env != "sandbox" {
		log.Fatal("-env is live or sandbox")
	}
	data := realdata.Dir()
	if data == "" {
		log.Fatal("no shared data folder (set KYCD_SHARED_DATA)")
	}
	docPhoto, err := os.ReadFile(filepath.Join(data, "images", *docName))
	if err != nil {
		log.Fatal(err)
	}

	dir, err := os.MkdirTemp("", "kycd-decide-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "kyc.db")
	key := make([]byte, seal.KeySize)
	rand.Read(key)
	if err := os.WriteFile(db+".master-key", []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600); err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	// A new database with its master key, as kycd init makes one.
	// The bench keeps it open beside the server's to read each liveness
	// session's challenge, as the portal's tests do and a page cannot:
	// the shared footage shows some movements only, so a session it
	// cannot answer is left unanswered and another opened, instead of
	// being answered wrongly (a failed session's frames would add to the
	// decision's work: portrait_not_selfie looks at every session frame).
	st, err := store.Open(ctx, db, store.Options{CheckpointEvery: -1, MasterKey: func(bool) (store.Sealer, error) { return seal.New(key) }})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	kycd := func(args ...string) string {
		var out, errOut bytes.Buffer
		if code := cmd.Main(ctx, "bench", args, &out, &errOut); code != 0 {
			log.Fatalf("kycd %v: %d %s %s", args, code, out.String(), errOut.String())
		}
		return strings.TrimSpace(out.String())
	}
	org := kycd("orgs", "create", "--db", db, "--name", "Bench Ltd", "--email", "kyc@bench.example")
	apiKey := kycd("keys", "create", "--db", db, "--org", org, "--env", *env, "--rpm", "0", "--name", "bench")
	imported := []string{}
	if *lists {
		for _, l := range []struct {
			source, kind, format string
			files                []string
		}{
			{"un", "sanctions", "un-xml", []string{"un_consolidated_2026-02-27.xml"}},
			{"ofac-sdn", "sanctions", "ofac-csv", []string{"ofac_sdn_2021-07.csv", "ofac_alt_2021-07.csv", "ofac_add_2021-07.csv"}},
			{"us-congress", "pep", "senzing", []string{"opensanctions_us_congress_peps_senzing.jsonl"}},
			{"ftm-sample", "adverse_media", "ftm", []string{"opensanctions_ftm_sample.jsonl"}},
		} {
			args := []string{"lists", "import", "--db", db, "--source", l.source, "--kind", l.kind, "--format", l.format}
			present := true
			for _, f := range l.files {
				p := filepath.Join(data, "lists", f)
				if _, err := os.Stat(p); err != nil {
					present = false
				}
				args = append(args, p)
			}
			if present {
				kycd(args...)
				imported = append(imported, l.source)
			}
		}
	}

	// kycd serve in this process, so that -cpuprofile sees it.
	pr, pw := io.Pipe()
	served := make(chan int, 1)
	go func() {
		served <- cmd.Main(ctx, "bench", []string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--uploads-per-minute", "0", "--trusted-proxies", "127.0.0.0/8"}, io.Discard, pw)
		pw.Close()
	}()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "kycd serving" {
				addr <- rec.Addr
			}
		}
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case code := <-served:
		log.Fatalf("kycd serve exited: %d", code)
	case <-time.After(60 * time.Second):
		log.Fatal("kycd serve did not start")
	}
	defer func() { stop(); <-served }()

	fmt.Printf("kycd submission→decision benchmark: %d CPUs, GOMAXPROCS %d, %s, %s, default policy, lists %v\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), *env, imported)
	fmt.Printf("document %s; liveness: shared footage relit by the asked colours; load average at start %s\n\n", *docName, loadavg())

	b := &bench{st: st, base: base, key: apiKey, typed: *typed, verbose: *verbose, data: data, lit: map[string][][]byte{}}
	var reqs []prepared
	for len(reqs) < *n {
		p, err := b.prepare(*holder, docPhoto)
		if err != nil {
			log.Fatal(err)
		}
		if p.id == "" {
			fmt.Printf("a request with no passed session (%d answered, %d unanswered): left out\n", len(p.sessions), p.unanswered)
			continue
		}
		reqs = append(reqs, p)
	}

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
	}
	var wall, server []float64
	statuses := map[string]int{}
	var codes map[string]bool
	for i := range reqs {
		w, s, status, rc, err := b.submit(reqs[i])
		if err != nil {
			log.Fatal(err)
		}
		wall, server = append(wall, w), append(server, s)
		statuses[status]++
		if codes == nil {
			codes = map[string]bool{}
			for _, c := range rc {
				codes[c] = true
			}
		}
	}
	if *cpuprofile != "" {
		pprof.StopCPUProfile()
	}

	var stepMs, finalMs []float64
	sessions, passed, unanswered := 0, 0, 0
	for _, p := range reqs {
		unanswered += p.unanswered
		for _, s := range p.sessions {
			sessions++
			if s.passed {
				passed++
			}
			stepMs = append(stepMs, s.steps...)
			finalMs = append(finalMs, s.final)
		}
	}
	fmt.Printf("liveness at session time (before submission), %d sessions answered, %d passed (%d left unanswered: movements the footage lacks):\n", sessions, passed, unanswered)
	fmt.Printf("  %-58s p50 %6.0f ms  p90 %6.0f ms  max %6.0f ms\n", "POST …/liveness/{id}/step (one step's 2 frames)", pct(stepMs, 50), pct(stepMs, 90), slices.Max(stepMs))
	fmt.Printf("  %-58s p50 %6.0f ms  p90 %6.0f ms  max %6.0f ms\n", "POST …/liveness/{id} (every frame: the session's analysis)", pct(finalMs, 50), pct(finalMs, 90), slices.Max(finalMs))
	fmt.Printf("\nsubmission→decision, %d requests submitted one at a time (statuses %v):\n", len(reqs), statuses)
	fmt.Printf("  %-58s p50 %6.0f ms  p90 %6.0f ms  max %6.0f ms\n", "wall: submit call sent → decision stored (5 ms polls)", pct(wall, 50), pct(wall, 90), slices.Max(wall))
	fmt.Printf("  %-58s p50 %6.0f ms  p90 %6.0f ms  max %6.0f ms\n", "server: submittedAt → decidedAt", pct(server, 50), pct(server, 90), slices.Max(server))
	fmt.Printf("goal p50 ≤ 1500 ms on 2 cores: %s\n", map[bool]string{true: "met", false: "NOT met"}[pct(wall, 50) <= 1500])
	var cs []string
	for c := range codes {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	fmt.Printf("first decision's reason codes: %v\n", cs)
	if *stageReps > 0 {
		if err := stages(docPhoto, b.selfie, b.frames, *stageReps); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("load average at end %s\n", loadavg())
}

type bench struct {
	st              *store.Store
	base, key, data string
	clients         int // applicants so far: each reaches the portal from its own address
	typed           string
	verbose         bool
	selfie          []byte // a passed session's first frame (the page's selfie) and its frames, for -stages
	frames          [][]byte
	lit             map[string][][]byte // LitPose by frame and colour
}

type session struct {
	steps  []float64 // each step post's time, ms
	final  float64
	passed bool
}

type prepared struct {
	id, portal, ip string
	sessions       []session
	unanswered     int // sessions opened with a challenge the footage cannot answer
}

// prepare creates a request and takes it up to submission: the document
// through a document camera session, and liveness sessions until one
// passes (id is empty when none of the request's sessions passed).
func (b *bench) prepare(holder string, doc []byte) (prepared, error) {
	var created struct{ ID, PortalURL string }
	if err := b.api("POST", "/v1/kyc-requests", `{"applicant":`+holder+`}`, 201, &created); err != nil {
		return prepared{}, err
	}
	b.clients++
	p := prepared{portal: b.base + "/portal/" + created.PortalURL[strings.LastIndex(created.PortalURL, "/")+1:],
		ip: fmt.Sprintf("198.51.%d.%d", b.clients/250, 1+b.clients%250)}
	var ds struct{ ID, Nonce string }
	if err := b.post(p, p.portal+"/document-session", "", nil, 201, &ds); err != nil {
		return p, err
	}
	body, ct := form([][2]string{{"kind", "document"}, {"side", "front"}, {"documentType", "passport"}, {"country", "LU"},
		{"method", "camera"}, {"sessionId", ds.ID}, {"nonce", ds.Nonce}}, "image", [][]byte{doc})
	if err := b.post(p, p.portal+"/captures", ct, body, 201, nil); err != nil {
		return p, err
	}
	// The details the applicant types, as the page's form sends them.
	if err := b.post(p, p.portal+"/document", "application/json", strings.NewReader(b.typed), 200, nil); err != nil {
		return p, err
	}
	for try := 0; try < kyc.MaxLivenessSessions; try++ {
		s, answered, err := b.liveness(p, created.ID)
		if err != nil {
			return p, err
		}
		if !answered {
			p.unanswered++
			continue
		}
		p.sessions = append(p.sessions, s)
		if s.passed {
			p.id = created.ID
			return p, nil
		}
	}
	return p, nil
}

// liveness runs one paced session as the page does: each step's frames
// are rendered once the server revealed its colour, from the footage of
// the person whose frames show the session's movements; answered is
// false when no one's do (the session is left unanswered).
func (b *bench) liveness(p prepared, requestID string) (s session, answered bool, err error) {
	portal := p.portal
	var o struct {
		ID, Nonce, Move, Light string
		Steps                  int
	}
	if err := b.post(p, portal+"/liveness", "", nil, 201, &o); err != nil {
		return s, false, err
	}
	var moves []string
	err = b.st.InTx(context.Background(), func(tx *store.Tx) error {
		sess, _, err := tx.FindLivenessSession(requestID, o.ID)
		if err == nil {
			moves = sess.Challenge
		}
		return err
	})
	if err != nil {
		return s, false, err
	}
	names, ok := livefootage.StepFrames(moves)
	if !ok {
		return s, false, nil
	}
	var all [][][]byte
	var receipts []string
	light, receipt := o.Light, ""
	for step := range o.Steps {
		began := time.Now()
		frames, err := b.litPose(names[step], light)
		if err != nil {
			return s, false, err
		}
		// A person needs time to read the step and move.
		time.Sleep(time.Until(began.Add(700 * time.Millisecond)))
		fields := [][2]string{{"nonce", o.Nonce}, {"steps", strconv.Itoa(step) + "," + strconv.Itoa(step)}}
		if receipt != "" {
			fields = append(fields, [2]string{"receipt", receipt})
		}
		body, ct := form(fields, "frame", frames)
		t0 := time.Now()
		var a struct{ Receipt, Light string }
		if err := b.post(p, portal+"/liveness/"+o.ID+"/step", ct, body, 200, &a); err != nil {
			return s, false, err
		}
		s.steps = append(s.steps, ms(time.Since(t0)))
		all = append(all, frames)
		receipts = append(receipts, a.Receipt)
		light, receipt = a.Light, a.Receipt
	}
	var stepList []string
	var frames [][]byte
	for i, f := range all {
		for range f {
			stepList = append(stepList, strconv.Itoa(i))
		}
		frames = append(frames, f...)
	}
	body, ct := form([][2]string{{"nonce", o.Nonce}, {"steps", strings.Join(stepList, ",")}, {"receipts", strings.Join(receipts, ",")}}, "frame", frames)
	t0 := time.Now()
	var v struct {
		Passed bool
		Failed []struct{ Code string }
	}
	if err := b.post(p, portal+"/liveness/"+o.ID, ct, body, 200, &v); err != nil {
		return s, false, err
	}
	if b.verbose {
		fmt.Fprintf(os.Stderr, "session of %d steps on %s's footage: passed %v %v\n", o.Steps, names[0], v.Passed, v.Failed)
	}
	s.final, s.passed = ms(time.Since(t0)), v.Passed
	if v.Passed && b.selfie == nil {
		b.selfie, b.frames = frames[0], frames
	}
	return s, true, nil
}

func (b *bench) litPose(name, light string) ([][]byte, error) {
	k := name + "/" + light
	if f, ok := b.lit[k]; ok {
		return f, nil
	}
	frame, err := livefootage.Frame(b.data, name)
	if err != nil {
		return nil, err
	}
	f, err := livefootage.LitPose(frame, light, livefootage.FaceLit)
	if err != nil {
		return nil, err
	}
	b.lit[k] = f
	return f, nil
}

// submit sends the page's submit call and polls until the decision is
// stored; it returns the wall time and the server's submittedAt→decidedAt
// in ms, the status and the reason codes.
func (b *bench) submit(p prepared) (wall, server float64, status string, codes []string, err error) {
	t0 := time.Now()
	r, err := b.do("POST", p.portal+"/submit", "application/json", strings.NewReader(`{}`), p.ip)
	if err != nil {
		return 0, 0, "", nil, err
	}
	if r.status != 200 && r.status != 202 {
		return 0, 0, "", nil, fmt.Errorf("submit: %d %s", r.status, r.body)
	}
	for deadline := t0.Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var got struct {
			Status                 string
			SubmittedAt, DecidedAt *time.Time
			ProcessingResult       *struct{ Reasons []struct{ Code string } }
		}
		if err := b.api("GET", "/v1/kyc-requests/"+p.id, "", 200, &got); err != nil {
			return 0, 0, "", nil, err
		}
		switch got.Status {
		case "approved", "rejected", "awaiting_review", "failed":
			wall = ms(time.Since(t0))
			if got.SubmittedAt != nil && got.DecidedAt != nil {
				server = ms(got.DecidedAt.Sub(*got.SubmittedAt))
			} else {
				server = math.NaN()
			}
			if got.ProcessingResult != nil {
				for _, rs := range got.ProcessingResult.Reasons {
					codes = append(codes, rs.Code)
				}
			}
			return wall, server, got.Status, codes, nil
		}
	}
	return 0, 0, "", nil, fmt.Errorf("%s not decided in 3 minutes", p.id)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// pct is the p-th percentile of xs (nearest rank).
func pct(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
