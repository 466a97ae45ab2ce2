package ocr

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"
)

func TestDebugCands(t *testing.T) {
	name := os.Getenv("DBG")
	if name == "" {
		t.Skip()
	}
	img := decodeFile(t, "/work/shared/data/images/"+name)
	g, _ := inkGray(img, maxSide)
	py := NewPyramid(g)
	net, _ := model()
	if p := os.Getenv("MODEL"); p != "" {
		b, _ := os.ReadFile(p)
		net, _ = DecodeNet(b)
	}
	var cands []scored
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
				RefineZone(py, lines)
				orderLines(lines)
				cands = append(cands, classify(net, py, lines, 3))
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	for k, c := range cands {
		full := classify(net, py, c.lines, 1)
		r := result(&full, py.levels[0], time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		d := decode(full.probs)
		fmt.Println(d.lines, full.probs[0][0][indexOf('I')], full.probs[0][0][None])
		x, y := c.lines[0].centre(0)
		fmt.Printf("%d score %.3f full %.3f at %.0f,%.0f pitch %.1f %s\n", k, c.score, full.score, x, y, c.lines[0].Pitch(), r)
	}
}

func TestDebugCandCounts(t *testing.T) {
	if os.Getenv("DBGALL") == "" {
		t.Skip()
	}
	_, gt := loadTruth(t)
	for _, g := range gt {
		img := decodeFile(t, "/work/shared/data/images/"+g.Image)
		gr, _ := inkGray(img, maxSide)
		py := NewPyramid(gr)
		n := 0
		for _, tr := range []bool{false, true} {
			det, f := detectionPlane(py, tr, 0)
			n += len(zoneCandidates(first(detectLines(det)), f, false))
		}
		fmt.Printf("%-45s %d\n", g.Image, n)
	}
}
