// Command screening measures screening speed and memory: (a) one person
// screened against the real OFAC, UN and PEP files, (b) against a
// synthetic list of a million names built from real name parts. It prints
// parse and index times, p50/p90/p99/max latency of single screenings and
// resident memory.
//
//	go run ./bench/screening [-data DIR] [-synthetic 1000000] [-queries 20000]
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kycd/internal/realdata"
	"kycd/screening"
)

func main() {
	dir := flag.String("data", realdata.Dir(), "shared data folder with lists/ and eval/ (default: found beside the repository)")
	synthetic := flag.Int("synthetic", 1_000_000, "names in the synthetic list (0 skips it)")
	queries := flag.Int("queries", 20000, "screenings per measurement")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the screenings here")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	log.SetFlags(0)
	fmt.Printf("GOMAXPROCS %d, %s\n\n", runtime.GOMAXPROCS(0), runtime.Version())

	qs, err := queryNames(*dir)
	if err != nil {
		log.Fatal(err)
	}

	// (a) the real lists.
	t0 := time.Now()
	real, err := realLists(*dir)
	if err != nil {
		log.Fatal(err)
	}
	parse := time.Since(t0)
	t1 := time.Now()
	var ixs []*screening.Index
	ents := 0
	for _, l := range real {
		ixs = append(ixs, screening.BuildIndex(l))
		ents += len(l)
	}
	build := time.Since(t1)
	fmt.Printf("(a) real lists: %d entities; parse %s, index %s, import total %s\n", ents, parse.Round(time.Millisecond),
		build.Round(time.Millisecond), (parse + build).Round(time.Millisecond))
	measure("(a) one screening against OFAC + UN + PEP", *queries, qs, func(q screening.Query) {
		for _, ix := range ixs {
			ix.Search(q, screening.DefaultThreshold, screening.MaxMatches)
		}
	})
	fmt.Printf("    resident memory %s\n\n", rss())

	if *synthetic == 0 {
		return
	}
	// (b) a million names from real parts.
	real, ixs = nil, nil
	runtime.GC()
	debug.FreeOSMemory()
	base := rss()
	t2 := time.Now()
	syn := syntheticList(*dir, *synthetic)
	gen := time.Since(t2)
	t3 := time.Now()
	ix := screening.BuildIndex(syn)
	syn = nil
	runtime.GC()
	fmt.Printf("(b) synthetic list: %d names (%d entities) generated in %s, indexed in %s\n", ix.NameCount(), ix.Len(),
		gen.Round(time.Millisecond), time.Since(t3).Round(time.Millisecond))
	measure("(b) one screening against 1,000,000 names", *queries, qs, func(q screening.Query) {
		ix.Search(q, screening.DefaultThreshold, screening.MaxMatches)
	})
	runtime.GC()
	fmt.Printf("    resident memory %s (before the list: %s)\n", rss(), base)
	runtime.KeepAlive(ix)
}

// measure runs n screenings one after another and prints percentiles.
func measure(name string, n int, qs []screening.Query, f func(screening.Query)) {
	for i := 0; i < 200; i++ { // warm up
		f(qs[i%len(qs)])
	}
	d := make([]time.Duration, n)
	cpu0 := processCPU()
	start := time.Now()
	for i := range d {
		t := time.Now()
		f(qs[i%len(qs)])
		d[i] = time.Since(t)
	}
	total := time.Since(start)
	cpu := processCPU() - cpu0
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	p := func(q float64) time.Duration { return d[int(q*float64(len(d)-1))].Round(time.Microsecond) }
	fmt.Printf("%s: %d screenings, %.0f/s on one goroutine; p50 %s  p90 %s  p99 %s  max %s; CPU %s per screening\n", name, n,
		float64(n)/total.Seconds(), p(0.5), p(0.9), p(0.99), d[len(d)-1].Round(time.Microsecond), (cpu / time.Duration(n)).Round(time.Microsecond))
}

func realLists(dir string) ([][]screening.Entity, error) {
	open := func(n string) (*os.File, error) { return os.Open(filepath.Join(dir, "lists", n)) }
	sdn, err := open("ofac_sdn_2021-07.csv")
	if err != nil {
		return nil, err
	}
	alt, err := open("ofac_alt_2021-07.csv")
	if err != nil {
		return nil, err
	}
	add, err := open("ofac_add_2021-07.csv")
	if err != nil {
		return nil, err
	}
	ofac, err := screening.ParseOFAC(sdn, alt, add)
	if err != nil {
		return nil, err
	}
	un, err := parseFile(filepath.Join(dir, "lists/un_consolidated_2026-02-27.xml"), screening.ParseUN)
	if err != nil {
		return nil, err
	}
	pep, err := parseFile(filepath.Join(dir, "lists/opensanctions_us_congress_peps_senzing.jsonl"), func(r io.Reader) ([]screening.Entity, error) {
		return screening.ParseSenzing(r, screening.PEP)
	})
	if err != nil {
		return nil, err
	}
	return [][]screening.Entity{ofac, un, pep}, nil
}

func parseFile(path string, parse func(io.Reader) ([]screening.Entity, error)) ([]screening.Entity, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(f)
}

// queryNames mixes the labelled customers: UN-listed people (hits) and
// people on no list (the usual case), with their dates of birth.
func queryNames(dir string) ([]screening.Query, error) {
	var qs []screening.Query
	for _, f := range []string{"positives_un_untreated.csv", "negatives_global_dev.csv", "negatives_us_dev.csv"} {
		rows, err := readCSV(filepath.Join(dir, "eval", f))
		if err != nil {
			return nil, err
		}
		for _, r := range rows[1:] {
			q := screening.Query{Name: r[0]}
			if len(r[5]) == 10 {
				q.DOB = r[5]
			}
			qs = append(qs, q)
		}
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	return qs, nil
}

// syntheticList builds n person entities whose names combine real given
// names and family names (from the eval customers and the lists' people),
// with dates of birth and countries, so token frequencies look like a
// real list's rather than random strings'.
func syntheticList(dir string, n int) []screening.Entity {
	var given, family []string
	for _, f := range []string{"negatives_global_dev.csv", "negatives_us_dev.csv"} {
		rows, err := readCSV(filepath.Join(dir, "eval", f))
		if err != nil {
			log.Fatal(err)
		}
		for _, r := range rows[1:] {
			if r[1] != "" && r[3] != "" {
				given = append(given, strings.Fields(r[1])...)
				family = append(family, strings.Fields(r[3])...)
			}
		}
	}
	real, err := realLists(dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range real {
		for _, e := range l {
			if e.Schema != screening.Person {
				continue
			}
			f := strings.Fields(strings.ReplaceAll(e.Names[0].Full, ",", " "))
			if len(f) >= 2 {
				family = append(family, f[0])
				given = append(given, f[1:]...)
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	countries := screening.CountryCodes()
	out := make([]screening.Entity, n)
	for i := range out {
		parts := []string{given[rng.IntN(len(given))]}
		if rng.IntN(3) == 0 {
			parts = append(parts, given[rng.IntN(len(given))])
		}
		parts = append(parts, family[rng.IntN(len(family))])
		dob := strconv.Itoa(1930+rng.IntN(80)) + fmt.Sprintf("-%02d-%02d", 1+rng.IntN(12), 1+rng.IntN(28))
		out[i] = screening.Entity{ID: "syn-" + strconv.Itoa(i), Schema: screening.Person,
			Names: []screening.Name{{Full: strings.Join(parts, " "), Type: screening.Primary}},
			DOBs:  []string{dob}, Countries: []string{countries[rng.IntN(len(countries))]}}
	}
	return out
}

func readCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	return r.ReadAll()
}

// rss is the process's resident memory from /proc (Linux).
// processCPU is the process's CPU time: on a machine shared with other
// work the wall-time percentiles swing with the load, the CPU time per
// screening much less (it includes the garbage collector's share).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func rss() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			kb, _ := strconv.Atoi(strings.Fields(l)[1])
			return fmt.Sprintf("%.0f MiB", float64(kb)/1024)
		}
	}
	return "unknown"
}
