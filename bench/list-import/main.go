// Command list-import measures a streaming list import at real size: it
// writes an OpenSanctions FtM export of -size bytes (default 2 GiB) shaped
// like the shared FtM sample into a temporary folder, imports it into a
// fresh database with aml.Import, and prints the time, entities per
// second and the peak resident memory (VmHWM from /proc) of the process
// during the import. With -screen it then loads the imported list into a
// screener and prints the resident memory that costs.
//
//	go run ./bench/list-import [-data DIR] [-size 2147483648] [-kind sanctions] [-screen [-loadprofile FILE] [-heapprofile FILE]]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"kycd/aml"
	"kycd/internal/listgen"
	"kycd/internal/realdata"
	"kycd/screening"
	"kycd/store"
)

func main() {
	dir := flag.String("data", realdata.Dir(), "shared data folder with lists/")
	size := flag.Int64("size", 2<<30, "bytes of FtM JSON lines to generate")
	kind := flag.String("kind", "sanctions", "kind imported (entities whose topics give another kind are skipped)")
	screen := flag.Bool("screen", false, "load the imported list into a screener afterwards and report its memory")
	loadProfile := flag.String("loadprofile", "", "with -screen: write a CPU profile of the load into the screener here")
	heapProfile := flag.String("heapprofile", "", "with -screen: write a heap profile of the loaded screener here")
	flag.Parse()
	log.SetFlags(0)
	tmp, err := os.MkdirTemp("", "kycd-list-import-*")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)

	f, err := os.Open(filepath.Join(*dir, "lists/opensanctions_ftm_sample.jsonl"))
	if err != nil {
		log.Fatal(err)
	}
	sample, err := listgen.ReadFTM(f)
	f.Close()
	if err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(tmp, "default.jsonl")
	out, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	t0 := time.Now()
	lines, err := listgen.FTM(out, sample, *size, 42)
	if err == nil {
		err = out.Close()
	}
	if err != nil {
		log.Fatal(err)
	}
	sample = nil
	runtime.GC()
	fmt.Printf("generated %s: %d lines, %.0f MiB in %s\n", path, lines, float64(*size)/(1<<20), time.Since(t0).Round(time.Millisecond))
	resetPeak()
	fmt.Printf("resident memory before the import: %s\n", status("VmRSS"))

	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(tmp, "kyc.db"), store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	k, err := screening.ParseKind(*kind)
	if err != nil {
		log.Fatal(err)
	}
	t1 := time.Now()
	last := time.Now()
	res, err := aml.Import(ctx, st, aml.ImportSpec{Source: "opensanctions-default", Kind: k, Format: "ftm", Files: []string{path},
		Progress: func(p aml.ImportProgress) {
			if time.Since(last) > 10*time.Second {
				last = time.Now()
				fmt.Printf("  %s: %.0f of %.0f MiB, %d entities, RSS %s\n", p.Phase, float64(p.Bytes)/(1<<20), float64(p.Total)/(1<<20), p.Entities, status("VmRSS"))
			}
		}})
	if err != nil {
		log.Fatal(err)
	}
	took := time.Since(t1)
	fmt.Printf("imported %d entities (%d names) of %d lines in %s: %.0f lines/s, %.1f MiB/s\n", res.Version.EntityCount, res.Names, lines,
		took.Round(time.Millisecond), float64(lines)/took.Seconds(), float64(*size)/(1<<20)/took.Seconds())
	fmt.Printf("peak resident memory during the import (VmHWM): %s (goal < 500 MB)\n", status("VmHWM"))
	if fi, err := os.Stat(filepath.Join(tmp, "kyc.db")); err == nil {
		fmt.Printf("database file: %.0f MiB\n", float64(fi.Size())/(1<<20))
	}
	if !*screen {
		return
	}
	runtime.GC()
	before := kib("VmRSS")
	if *loadProfile != "" {
		pf, err := os.Create(*loadProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			log.Fatal(err)
		}
	}
	t2 := time.Now()
	sc, err := screening.NewScreener()
	if err != nil {
		log.Fatal(err)
	}
	svc := aml.New(st, sc, nil)
	if err := svc.Refresh(ctx); err != nil {
		log.Fatal(err)
	}
	took2 := time.Since(t2)
	pprof.StopCPUProfile()
	runtime.GC()
	ix := sc.Lists()[0].Index
	after := kib("VmRSS")
	fmt.Printf("loaded into the screener in %s: %d entities, %d names; resident memory +%.0f MiB = %.0f MiB per million entities\n",
		took2.Round(time.Millisecond), ix.Len(), ix.NameCount(), float64(after-before)/1024,
		float64(after-before)/1024/float64(ix.Len())*1e6)
	if *heapProfile != "" {
		pf, err := os.Create(*heapProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(pf); err != nil {
			log.Fatal(err)
		}
		pf.Close()
	}
	runtime.KeepAlive(sc)
}

// resetPeak resets VmHWM (Linux: writing 5 to clear_refs), so the peak
// measured is the import's, not the generator's.
func resetPeak() {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		log.Printf("cannot reset the peak RSS (%v): VmHWM includes generating the file", err)
	}
}

func status(field string) string {
	k := kib(field)
	if k < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.0f MiB", float64(k)/1024)
}

func kib(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field+":") {
			n, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return n
		}
	}
	return -1
}
