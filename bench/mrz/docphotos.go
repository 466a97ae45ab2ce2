package main

import (
	"bytes"
	"fmt"
	"image"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"kycd/capture"
	"kycd/mrz/ocr"
)

// docPhotoTruth is the zone of each docphotos/ image as printed. The set
// comes without ground truth: these were read by eye and their check
// digits recomputed (portal's TestDocPhotosThroughPortal checks the same
// details through the portal). Nothing was tuned on this set: it is the
// "never seen" measure. Two specimens are printed with wrong check
// digits (the US card's number; the Spanish card's birth date, whose
// zone also prints Ñ, which no MRZ reading can reproduce): read exactly
// means, as for doc_*, every line right and the reader saying it read
// them (read, or invalid for a zone printed wrong).
var docPhotoTruth = map[string][]string{
	"doc_td3_can_passport_specimen_annotated.jpg": {"P<CANMARTIN<<SARAH<<<<<<<<<<<<<<<<<<<<<<<<<<", "ZE000509<9CAN8501019F2301147<<<<<<<<<<<<<<08"},
	"doc_td3_cze_passport_specimen_vzor_scan.jpg": {"P<CZESPECIMEN<<VZOR<<<<<<<<<<<<<<<<<<<<<<<<<", "99009054<4CZE6906229F16072996956220612<<<<74"},
	"doc_td3_hun_passport_specimen_scan.png":      {"P<HUNHANDRA<<ROZALIA<IRMA<<<<<<<<<<<<<<<<<<<", "BD00020282HUN7802225F2203012<<<<<<<<<<<<<<06"},
	"doc_td3_pol_passport_specimen_kowalska_scan.png": {"P<POLKOWALSKA<<ANNA<<<<<<<<<<<<<<<<<<<<<<<<<",
		"ZS00001774POL7203305F1607130<<<<<<<<<<<<<<08"},
	"doc_td3_twn_passport_specimen_scan.jpg": {"P<TWNLIN<<CHIEN<SHENG<<<<<<<<<<<<<<<<<<<<<<<", "M000004264TWN6803029M9801048F122187664<<<<66"},
	"doc_td1_usa_permanent_resident_card_sample.jpg": {"C1USA0223456791EAC9730051220<<", "4910040M9411014CAN<<<<<<<<<<<0",
		"CRITTENDEN<<LEE<W<<<<<<<<<<<<<"},
	"doc_td1_esp_dni_back_mrz_crop.png": {"IDESPAAA1000014<00000023T<<<<<", "7212018F1101236ESP<<<<<<<<<<<8",
		"ESPAÑOLA<ESPAÑOLA<CARMEN<<<<<<"},
}

// docPhotos reads every image of dir as the portal does: through capture
// (EXIF orientation applied, re-encoded), then both reads: the portal's
// upload-time one (ocr.ReadAtUsualScale, what the applicant confirms) and
// the decision engine's (ocr.Read). With phone, each image is also
// degraded as the phone classes degrade doc_* (never stored). Its own
// table: these images were never looked at while building the reader.
func docPhotos(dir string, ref time.Time, phone bool, onlyClass string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\ndocphotos (never seen; through capture as the portal reads them)\n")
	rows := map[string]*row{}
	add := func(key string, o outcome) {
		if rows[key] == nil {
			rows[key] = &row{name: key}
		}
		rows[key].add(o)
	}
	read := func(key, name string, img image.Image, want []string) {
		cpu0 := cpuTime()
		r, err := ocr.Read(img, ref)
		if err != nil {
			log.Fatal(err)
		}
		t := truth{Image: name, MRZ: want}
		o := score(t, r.Lines, r.Status == ocr.StatusRead || r.Status == ocr.StatusInvalid, r.Status == ocr.StatusRead)
		o.elapsed, o.cpu = r.Elapsed, cpuTime()-cpu0
		add(key+" (engine)", o)
		cpu0 = cpuTime()
		u, err := ocr.ReadAtUsualScale(img, ref)
		if err != nil {
			log.Fatal(err)
		}
		ou := score(t, u.Lines, u.Status == ocr.StatusRead || u.Status == ocr.StatusInvalid, u.Status == ocr.StatusRead)
		ou.elapsed, ou.cpu = u.Elapsed, cpuTime()-cpu0
		add(key+" (upload)", ou)
		if key == "unseen clean" {
			fmt.Printf("%-50s engine %-10s %-9s upload %-10s %4dms %v\n", name, r.Status, r.Hint, u.Status, r.Elapsed.Milliseconds(), r.Lines)
		}
	}
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if ext != ".jpg" && ext != ".png" && ext != ".jpeg" {
			continue
		}
		want, ok := docPhotoTruth[e.Name()]
		if !ok {
			log.Fatalf("docphotos/%s: no transcription in docPhotoTruth", e.Name())
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			log.Fatal(err)
		}
		c, err := capture.Process(f, capture.Limits{})
		f.Close()
		if err != nil {
			// The portal refuses it too: a miss.
			fmt.Printf("%-50s refused at upload: %v\n", e.Name(), err)
			add("unseen clean (upload)", outcome{all: 1})
			add("unseen clean (engine)", outcome{all: 1})
			continue
		}
		img, _, err := image.Decode(bytes.NewReader(c.Data))
		if err != nil {
			log.Fatal(err)
		}
		read("unseen clean", e.Name(), img, want)
		if !phone {
			continue
		}
		for _, pc := range phoneCases {
			if !strings.Contains(pc.name, onlyClass) {
				continue
			}
			m, err := phoneJPEG(pc.make(img, seeded(e.Name(), pc.name)))
			if err != nil {
				log.Fatal(err)
			}
			read("unseen "+pc.name, e.Name(), m, want)
		}
	}
	printUnseen(rows)
}

// printUnseen prints the never-seen rows and, over the phone classes,
// one row per read.
func printUnseen(rows map[string]*row) {
	fmt.Printf("| %-33s | %6s | %12s | %8s | %10s | %13s | %8s | %8s | %8s | %8s |\n", "class", "images", "read exact", "returned", "char acc.", "wrong+valid", "p50 ms", "max ms", "p50 cpu", "max cpu")
	var names []string
	for k := range rows {
		names = append(names, k)
	}
	sort.Strings(names)
	phones := map[string]*row{"(engine)": {name: "unseen all phone (engine)"}, "(upload)": {name: "unseen all phone (upload)"}}
	for _, k := range names {
		printRowWide(rows[k], 33)
		if strings.HasPrefix(k, "unseen phone ") {
			phones[k[strings.LastIndexByte(k, ' ')+1:]].merge(rows[k])
		}
	}
	for _, k := range []string{"(engine)", "(upload)"} {
		if phones[k].n > 0 {
			printRowWide(phones[k], 33)
		}
	}
}
