package face

import (
	_ "embed" // the cascade is compiled into the binary
	"fmt"
	"sync"

	pigo "github.com/esimov/pigo/core"
)

// facefinder is pigo v1.4.6's cascade/facefinder, byte for byte (sha256
// d8014993e7298c7b1865d1f8b855d6dbf4ec5c808bf879e2091ab6837abf90cd),
// trained by Nenad Markus for pico; licence in cascade/LICENSE.
//
//go:embed cascade/facefinder
var facefinder []byte

var (
	classifierOnce sync.Once
	classifier     *pigo.Pigo
)

// cascade returns the unpacked classifier, built once. A *pigo.Pigo is
// only read after Unpack, so one value serves every goroutine.
func cascade() *pigo.Pigo {
	classifierOnce.Do(func() {
		c, err := unpack(facefinder)
		if err != nil {
			// The file is embedded: a bad one is a broken build, which
			// TestCascadeUnpacks reports before any request could.
			panic(err)
		}
		classifier = c
	})
	return classifier
}

// unpack parses a pico cascade. pigo indexes the bytes without bounds
// checks, so a truncated file would panic inside it; the header is
// checked here and any panic is turned into an error.
func unpack(b []byte) (p *pigo.Pigo, err error) {
	if len(b) < 16 {
		return nil, fmt.Errorf("face: cascade is %d bytes, too short", len(b))
	}
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("face: unpack cascade: %v", r)
		}
	}()
	p, err = pigo.NewPigo().Unpack(b)
	if err != nil {
		return nil, fmt.Errorf("face: unpack cascade: %w", err)
	}
	return p, nil
}
