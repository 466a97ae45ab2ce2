package ocr

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"testing"
)

func TestDebugDetect(t *testing.T) {
	name := os.Getenv("DBG")
	if name == "" {
		t.Skip()
	}
	img := decodeFile(t, "/work/shared/data/images/"+name)
	g, _ := inkGray(img, maxSide)
	py := NewPyramid(g)
	for _, tr := range []bool{false, true} {
		det, f := detectionPlane(py, tr, 0)
		mask := inkMask(det, 16)
		out := image.NewRGBA(image.Rect(0, 0, det.w, det.h))
		for i, m := range mask {
			v := uint8(det.pix[i])
			if m {
				out.Pix[4*i], out.Pix[4*i+1], out.Pix[4*i+2], out.Pix[4*i+3] = 0, 0, 0, 255
			} else {
				out.Pix[4*i], out.Pix[4*i+1], out.Pix[4*i+2], out.Pix[4*i+3] = v/2+127, v/2+127, v/2+127, 255
			}
		}
		cs, _ := detectLines(det)
		for _, c := range cs {
			col := color.RGBA{255, 0, 0, 255}
			if len(c.blobs) >= 12 {
				col = color.RGBA{0, 160, 0, 255}
			}
			for _, b := range c.blobs {
				for x := b.x0; x <= b.x1; x++ {
					out.Set(x, b.y0, col)
					out.Set(x, b.y1, col)
				}
				for y := b.y0; y <= b.y1; y++ {
					out.Set(b.x0, y, col)
					out.Set(b.x1, y, col)
				}
			}
			if len(c.blobs) >= 10 {
				fmt.Printf("tr=%v chain n=%d span=%d h=%.1f pitch=%.1f at %.0f,%.0f dir %.3f,%.3f\n", tr, len(c.blobs), c.span, c.height, c.pitch, c.blobs[0].cx, c.blobs[0].cy, c.ux, c.uy)
			}
		}
		fmt.Printf("tr=%v scale %.2f candidates %d\n", tr, f.scale, len(zoneCandidates(cs, f, false)))
		fo, _ := os.Create(fmt.Sprintf("/tmp/dbg_%v.png", tr))
		png.Encode(fo, out)
		fo.Close()
	}
}

func TestDebugCells(t *testing.T) {
	name := os.Getenv("DBG")
	if name == "" {
		t.Skip()
	}
	img := decodeFile(t, "/work/shared/data/images/"+name)
	g, _ := inkGray(img, maxSide)
	py := NewPyramid(g)
	net, _ := model()
	var best scored
	best.score = -1e9
	for _, tr := range []bool{false, true} {
		det, f := detectionPlane(py, tr, 0)
		for _, c := range zoneCandidates(first(detectLines(det)), f, false) {
			for _, rev := range []bool{false, true} {
				lines := append([]Line(nil), c.lines...)
				if rev {
					for i, l := range c.lines {
						lines[i] = l.reversed()
					}
				}
				for i := range lines {
					RefineLine(py, &lines[i])
				}
				orderLines(lines)
				s := classify(net, py, lines, 1)
				fmt.Printf("cand tr=%v rev=%v score %.3f lines %+v\n", tr, rev, s.score, lines[0])
				if s.score > best.score {
					best = s
				}
			}
		}
	}
	strip := image.NewGray(image.Rect(0, 0, CellW*44, CellH*len(best.lines)))
	for li := range best.lines {
		cs := SampleLine(py, &best.lines[li])
		for i, c := range cs.Cells {
			for v := range CellH {
				for u := range CellW {
					strip.Pix[(li*CellH+v)*strip.Stride+i*CellW+u] = 255 - uint8(c[v*CellW+u]*255)
				}
			}
		}
	}
	big := image.NewGray(image.Rect(0, 0, strip.Rect.Dx()*3, strip.Rect.Dy()*3))
	for y := range big.Rect.Dy() {
		for x := range big.Rect.Dx() {
			big.Pix[y*big.Stride+x] = strip.Pix[(y/3)*strip.Stride+x/3]
		}
	}
	fo, _ := os.Create("/tmp/dbg_cells.png")
	png.Encode(fo, big)
	fo.Close()
	// Overlay of cell centres on the image.
	out := image.NewRGBA(image.Rect(0, 0, g.Rect.Dx(), g.Rect.Dy()))
	for i, v := range g.Pix {
		out.Pix[4*i], out.Pix[4*i+1], out.Pix[4*i+2], out.Pix[4*i+3] = v, v, v, 255
	}
	for li := range best.lines {
		l := &best.lines[li]
		for i := range l.N {
			x, y := l.centre(float64(i))
			h := l.height(float64(i))
			for d := -h / 2; d <= h/2; d++ {
				out.Set(int(x), int(y+d), color.RGBA{255, 0, 0, 255})
			}
			out.Set(int(x)-1, int(y), color.RGBA{0, 0, 255, 255})
			out.Set(int(x)+1, int(y), color.RGBA{0, 0, 255, 255})
		}
	}
	fo, _ = os.Create("/tmp/dbg_overlay.png")
	png.Encode(fo, out)
	fo.Close()
}

func TestDebugGeom(t *testing.T) {
	name := os.Getenv("DBG")
	if name == "" {
		t.Skip()
	}
	img := decodeFile(t, "/work/shared/data/images/"+name)
	g, _ := inkGray(img, maxSide)
	py := NewPyramid(g)
	for _, tr := range []bool{false, true} {
		det, f := detectionPlane(py, tr, 0)
		for _, c := range zoneCandidates(first(detectLines(det)), f, false) {
			for i, l := range c.lines {
				m := float64(l.N-1) / 2
				x, y := l.centre(m)
				fmt.Printf("tr=%v line %d raw: mid %.1f,%.1f h %.2f pitch %.2f\n", tr, i, x, y, l.height(m), l.Pitch())
				RefineLine(py, &l)
				x, y = l.centre(m)
				fmt.Printf("tr=%v line %d ref: mid %.1f,%.1f h %.2f pitch %.2f\n", tr, i, x, y, l.height(m), l.Pitch())
			}
		}
	}
}

func first[A, B any](a A, _ B) A { return a }
