// Command testphoto writes a made-up photo for trying the applicant portal
// in the sandbox, where the decision follows a test trigger and not the
// photo: a grey card with a darker box where a portrait would be, and
// camera-like noise so that it is not a flat drawing. It is no document and
// no face; in live it would be rejected or sent to review, as it should.
//
//	go run ./docs/examples/testphoto -out document.png
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
)

func main() {
	out := flag.String("out", "photo.png", "the PNG file to write")
	seed := flag.Uint64("seed", 1, "the noise's seed: two seeds give two different photos")
	flag.Parse()
	if err := write(*out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "testphoto:", err)
		os.Exit(1)
	}
}

// write draws a 640×400 card. The portal refuses photos under 120 pixels a
// side and identical images are flagged as reused, hence the seed.
func write(path string, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 29))
	img := image.NewGray(image.Rect(0, 0, 640, 400))
	for y := 0; y < 400; y++ {
		for x := 0; x < 640; x++ {
			v := 200
			if x >= 40 && x < 200 && y >= 80 && y < 300 {
				v = 90 // where a portrait would be
			}
			v += rng.IntN(17) - 8
			img.SetGray(x, y, color.Gray{Y: uint8(v)})
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
