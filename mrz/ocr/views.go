package ocr

import "math"

// A zone read but for a few unsure characters is looked at again through
// slightly shifted cell frames, and the classifier's outputs are averaged
// over the views. The cells are laid by a fit that is off by a tenth of a
// pitch here and there (JPEG blocks, a bent page), and a glyph seen a
// little off-centre is where the classifier hesitates; the average over
// the frames around the fitted one is a steadier estimate than any one of
// them. It is an average, so it never makes a character surer than the
// surest view says, and the decoder's thresholds are unchanged.
const (
	// maxViewUnsure: a zone with more unsure characters is damaged
	// (blur, glare), not off by a few samples; other views do not help.
	maxViewUnsure = 6
	// viewShift and viewLift: the shifts along the line (in pitches) and
	// across it (in character heights) of the extra views.
	viewShift = 0.12
	viewLift  = 0.06
)

// shifted is l moved along itself by di cells and across by lift
// character heights (positive: down the page).
func (l Line) shifted(di, lift float64) Line {
	m := l
	m.X[0] = l.X[0] + di*(l.X[1]+di*l.X[2])
	m.X[1] = l.X[1] + 2*di*l.X[2]
	m.Y[0] = l.Y[0] + di*(l.Y[1]+di*l.Y[2])
	m.Y[1] = l.Y[1] + 2*di*l.Y[2]
	m.H[0] = l.H[0] + di*l.H[1]
	tx, ty := l.tangent(float64(l.N) / 2)
	if n := math.Hypot(tx, ty); n > 0 && lift != 0 {
		d := lift * l.height(float64(l.N)/2)
		m.X[0] -= ty / n * d
		m.Y[0] += tx / n * d
	}
	return m
}

// viewAverage returns s with each cell's outputs averaged over s's own
// frame and four shifted ones (left, right, up, down).
func viewAverage(net *Net, py *Pyramid, s *scored) scored {
	out := *s
	out.probs = make([][][]float32, len(s.probs))
	for i := range s.probs {
		out.probs[i] = make([][]float32, len(s.probs[i]))
		for k, p := range s.probs[i] {
			out.probs[i][k] = append([]float32(nil), p...)
		}
	}
	const n = 5
	shifts := [][2]float64{{-viewShift, 0}, {viewShift, 0}, {0, -viewLift}, {0, viewLift}}
	nl := len(s.lines)
	sampled := make([][][]float32, len(shifts)*nl)
	eachOf(len(sampled), func(j int) {
		l := s.lines[j%nl].shifted(shifts[j/nl][0], shifts[j/nl][1])
		sampled[j] = SampleLine(py, &l).Cells
	})
	var cells [][]float32
	for _, cs := range sampled {
		cells = append(cells, cs...)
	}
	// Summed in the order the frames are listed, as one loop would.
	probs := forwardAll(net, cells)
	for len(probs) > 0 {
		for i := range s.lines {
			for k := range out.probs[i] {
				for j, v := range probs[k] {
					out.probs[i][k][j] += v
				}
			}
			probs = probs[len(out.probs[i]):]
		}
	}
	for i := range out.probs {
		for k := range out.probs[i] {
			for j := range out.probs[i][k] {
				out.probs[i][k][j] /= n
			}
		}
	}
	return out
}
