package pdf417test_test

import (
	"bytes"
	"testing"

	"kycd/aamva/aamvatest"
	"kycd/pdf417"
	"kycd/pdf417/pdf417test"
)

// TestRenderReads checks that what Render draws is what the reader reads,
// at every correction level a licence uses.
func TestRenderReads(t *testing.T) {
	text := []byte(aamvatest.Record(10, false))
	for _, ec := range []int{2, 3, 5} {
		res, err := pdf417.Decode(pdf417test.Render(text, 10, ec, 2))
		if err != nil {
			t.Fatalf("level %d: %v", ec, err)
		}
		if !bytes.Equal(res.Text, text) || res.ECLevel != ec {
			t.Errorf("level %d: read level %d, %q", ec, res.ECLevel, res.Text)
		}
	}
}
