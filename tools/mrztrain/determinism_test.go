package main

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"kycd/mrz/ocr"
)

// TestTrainingIsDeterministic trains twice on a small set, with the two
// workers of the real command, and gets the same weights byte for byte:
// the property that lets the full command rebuild model.bin exactly.
func TestTrainingIsDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("renders and trains")
	}
	fs, err := loadFonts()
	if err != nil {
		t.Fatal(err)
	}
	run := func() []byte {
		a := generate(fs, 1, 0, 6)
		b := generate(fs, 1, 6, 12)
		a.x, a.y = append(a.x, b.x...), append(a.y, b.y...)
		val := generate(fs, 2, 0, 2)
		r := rand.New(rand.NewPCG(3, 0))
		n := initNet(r)
		train(r, n, a, val, 1, func(string, ...any) {})
		return ocr.EncodeNet(n)
	}
	first, second := run(), run()
	if !bytes.Equal(first, second) {
		t.Fatal("two trainings from the same seeds gave different weights")
	}
}
