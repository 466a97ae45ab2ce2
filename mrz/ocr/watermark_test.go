package ocr

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"kycd/mrz"
)

// TestSquareFilter compares the linear-time filters (rows by runMax,
// columns by colMax's blocks) with the greatest and least over each
// square counted out, on random planes of sizes around the block size.
func TestSquareFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		w, h, r := 1+rng.IntN(30), 1+rng.IntN(30), rng.IntN(7)
		p := newPlane(w, h)
		for i := range p.pix {
			p.pix[i] = float32(rng.IntN(256))
		}
		for _, grow := range []bool{true, false} {
			q := newPlane(w, h)
			copy(q.pix, p.pix)
			squareFilter(q, r, grow)
			for y := range h {
				for x := range w {
					want := p.pix[y*w+x]
					for yy := max(0, y-r); yy <= min(h-1, y+r); yy++ {
						for xx := max(0, x-r); xx <= min(w-1, x+r); xx++ {
							if v := p.pix[yy*w+xx]; (v > want) == grow && v != want {
								want = v
							}
						}
					}
					if got := q.pix[y*w+x]; got != want {
						t.Fatalf("%d×%d r %d grow %v at (%d,%d): %v, want %v", w, h, r, grow, x, y, got, want)
					}
				}
			}
		}
	}
}

// wordOver lays the word s, written in basicfont's 7×13 face scaled to
// a character height of ch pixels, repeated in rows turned by ang
// radians over the whole of a copy of img, in colour c with weight a: a
// stock photo's "SAMPLE" watermark.
func wordOver(img image.Image, s string, ch, ang float64, c color.RGBA, a float64) *image.RGBA {
	mask := image.NewAlpha(image.Rect(0, 0, 7*len(s), 13))
	d := font.Drawer{Dst: mask, Src: image.Opaque, Face: basicfont.Face7x13, Dot: fixed.P(0, 11)}
	d.DrawString(s)
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	scale := ch / 13
	mw, rowH := mask.Rect.Dx(), 13+13
	cs, sn := math.Cos(ang), math.Sin(ang)
	for y := range b.Dy() {
		for x := range b.Dx() {
			u := (float64(x)*cs + float64(y)*sn) / scale
			v := (-float64(x)*sn + float64(y)*cs) / scale
			row := math.Floor(v / float64(rowH))
			v -= row * float64(rowH)
			u += row * float64(mw) / 2
			u -= math.Floor(u/float64(mw)) * float64(mw)
			iu, iv := int(u), int(v)
			if iv >= 13 || mask.Pix[iv*mask.Stride+iu] == 0 {
				continue
			}
			k := a * float64(mask.Pix[iv*mask.Stride+iu]) / 255
			o := out.PixOffset(x, y)
			out.Pix[o] = uint8(float64(out.Pix[o])*(1-k) + float64(c.R)*k)
			out.Pix[o+1] = uint8(float64(out.Pix[o+1])*(1-k) + float64(c.G)*k)
			out.Pix[o+2] = uint8(float64(out.Pix[o+2])*(1-k) + float64(c.B)*k)
		}
	}
	return out
}

// TestReadThroughWatermarkWord lays a word repeated diagonally over the
// whole page (grey "SAMPLE" at 40%, white "SPECIMEN" at 50%, letters as
// tall as the zone's characters and twice as tall) on every tuning-half
// doc_* photo read clean: never a wrong reading, and at least as many
// read as when the translucent layer was first undone (10, 9 and 3 of
// 15; 6, 6 and 3 of 14 before readFlattened), less the one declined since
// zones cut by a layer's edge are not taken from the first look (see
// cutCells): 9, 9 and 3. White letters over the zone
// erase parts of its characters: those stay mostly unread, as they
// should.
func TestReadThroughWatermarkWord(t *testing.T) {
	if testing.Short() {
		t.Skip("reads shared photos")
	}
	marks := []struct {
		word    string
		c       color.RGBA
		a, size float64 // opacity; letter height in zone character heights
		minRead int
	}{
		{"SAMPLE ", color.RGBA{110, 110, 110, 255}, 0.4, 1, 9},
		{"SAMPLE ", color.RGBA{110, 110, 110, 255}, 0.4, 2, 9},
		{"SPECIMEN ", color.RGBA{255, 255, 255, 255}, 0.5, 2, 3},
	}
	tried, read := readTuningHalfUnder(t, len(marks), func(img image.Image, clean *Result, i int) image.Image {
		m := marks[i]
		return wordOver(img, m.word, clean.PitchPx*1.4*m.size, -0.5, m.c, m.a)
	})
	for i, m := range marks {
		t.Logf("%q %v %.2f opaque, %.0f× the zone's characters: %d of %d read exactly", m.word, m.c, m.a, m.size, read[i], tried[i])
		if read[i] < m.minRead {
			t.Errorf("%q %.2f opaque: %d read, want at least %d", m.word, m.a, read[i], m.minRead)
		}
	}
}

// TestAgreesFlattened: the second look may settle what the first hesitated over
// and change a character a check digit vouches for, never overturn a
// character the first look was sure of elsewhere (a name), nor swap
// characters a check digit weighs the same.
func TestAgreesFlattened(t *testing.T) {
	lines := []string{"P<LTUBASANAVICIENE<<BIRUTE<<<<<<<<<<<<<<<<<<", "00000000<0LTU5911239F120101145911231023<<<16"}
	sure := func(unsure ...[2]int) *Result {
		r := &Result{Status: StatusUnreadable, Format: mrz.TD3, Lines: lines}
		for _, l := range lines {
			c := make([]float64, len(l))
			for k := range c {
				c[k] = 0.999
			}
			r.Confidence = append(r.Confidence, c)
		}
		for _, p := range unsure {
			r.Confidence[p[0]][p[1]] = 0.6
		}
		return r
	}
	with := func(line, col int, c byte) *Result {
		ls := slices.Clone(lines)
		b := []byte(ls[line])
		b[col] = c
		ls[line] = string(b)
		return &Result{Status: StatusRead, Format: mrz.TD3, Lines: ls}
	}
	for _, tc := range []struct {
		name          string
		first, second *Result
		want          bool
	}{
		{"same reading", sure(), with(0, 5, 'B'), true},
		{"a sure letter of the name changed", sure(), with(0, 5, 'O'), false},
		{"an unsure letter of the name settled", sure([2]int{0, 5}), with(0, 5, 'O'), true},
		{"a sure digit of the birth date changed (a check digit covers it)", sure(), with(1, 13, '6'), true},
		{"a sure 0 of the document number turned U (same weight)", sure(), with(1, 2, 'U'), false},
		{"no zone at the first look", &Result{Status: StatusNotFound}, with(0, 5, 'O'), true},
		{"the first look's zone of another shape", &Result{Status: StatusUnreadable, Lines: []string{"P<LTU"}, Confidence: [][]float64{{1, 1, 1, 1, 1}}}, with(0, 5, 'O'), true},
	} {
		if got := agreesFlattened(tc.first, tc.second); got != tc.want {
			t.Errorf("%s: agrees %v, want %v", tc.name, got, tc.want)
		}
	}
}
