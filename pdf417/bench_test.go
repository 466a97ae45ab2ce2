package pdf417

import (
	"image"
	"os"
	"path/filepath"
	"testing"

	"kycd/aamva/aamvatest"
	"kycd/internal/realdata"
)

// BenchmarkDecode reads a rendered AAMVA version 10 symbol, the shared
// photo-like synthetic licence, and a clean render of the shared set.
func BenchmarkDecode(b *testing.B) {
	msg := aamvatest.Record(10, false)
	imgs := map[string]image.Image{
		"rendered AAMVA v10": render(symbol(textEncode(msg), 10, 5), 3, 4),
	}
	for name, file := range map[string]string{
		"shared AAMVA photo-like": "synth_aamva_v10_sample_michael_john_degraded.jpg",
		"shared camera photo":     "zxing_pdf417-2_01.png",
	} {
		f, err := os.Open(filepath.Join(realdata.Path(b, "barcodes/MANIFEST.csv"), "..", file))
		if err != nil {
			b.Fatal(err)
		}
		img, _, err := image.Decode(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		imgs[name] = img
	}
	for name, img := range imgs {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(img); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCorrect repairs a 928-codeword symbol at level 8 (512
// correction codewords) with 100 errors and 100 erasures.
func BenchmarkCorrect(b *testing.B) {
	data := make([]int, 928-512)
	for i := range data {
		data[i] = (i * 37) % mod
	}
	want := append(data, rsEncode(data, 512)...)
	var er []int
	for i := 0; i < 100; i++ {
		er = append(er, i*9)
	}
	b.ReportAllocs()
	for b.Loop() {
		cw := append([]int(nil), want...)
		for _, j := range er {
			cw[j] = 0
		}
		for i := 0; i < 100; i++ {
			cw[i*9+4] = (cw[i*9+4] + 1) % mod
		}
		if _, err := correct(cw, 512, er); err != nil {
			b.Fatal(err)
		}
	}
}
