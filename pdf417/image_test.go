package pdf417

import (
	"testing"
)

func TestDecodeRendered(t *testing.T) {
	msg := "@\n\x1e\rANSI 636000100002DL00410278ZV03190008DLDAQT64235789\nDCSSAMPLE\nDDEN\n"
	for _, tc := range []struct {
		cols, ec, x int
	}{{5, 2, 2}, {8, 5, 3}, {3, 0, 2}, {12, 3, 1}} {
		grid := symbol(textEncode(msg), tc.cols, tc.ec)
		img := render(grid, tc.x, 2)
		res, err := Decode(img)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if string(res.Text) != msg {
			t.Fatalf("%+v: got %q", tc, res.Text)
		}
	}
}
