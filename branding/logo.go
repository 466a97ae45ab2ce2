// Package branding makes an organization's branding safe to show an
// applicant: it re-encodes PNG logos, sanitises SVG logos to a whitelist of
// drawing elements, and derives from the brand colour a palette whose text
// keeps WCAG AA contrast whatever colour was chosen.
package branding

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"kycd/capture"
	"kycd/kyc"
)

// Limits of a logo. The portal shows it at most 48 px high (96 device
// pixels on a phone), so anything larger is wasted on the applicant's data
// plan; 2048 px a side leaves room for a wide word mark.
const (
	MaxLogoSide   = 2048
	MinLogoSide   = 16
	maxLogoPixels = MaxLogoSide * MaxLogoSide
)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// LogoError says why a logo was refused; its message is for the operator.
type LogoError struct{ Message string }

func (e *LogoError) Error() string { return e.Message }

// ProcessLogo checks an uploaded logo and returns it ready to store: a PNG
// decoded and re-encoded by capture (so nothing but pixels survives:
// no text chunks, no trailing data), or an SVG rebuilt from a whitelist
// of elements and attributes (no script, no event handler, no
// foreignObject, no reference outside the file). removed lists what the
// sanitiser dropped from an SVG, for the operator to check. A refused
// logo is a *LogoError.
func ProcessLogo(data []byte) (logo *kyc.Logo, removed []string, err error) {
	if len(data) > kyc.MaxLogoBytes {
		return nil, nil, &LogoError{fmt.Sprintf("the logo is %d bytes; it must be at most %d KB", len(data), kyc.MaxLogoBytes>>10)}
	}
	if bytes.HasPrefix(data, pngSignature) {
		img, err := capture.Process(bytes.NewReader(data), capture.Limits{MaxBytes: kyc.MaxLogoBytes, MaxPixels: maxLogoPixels, MinSide: MinLogoSide})
		if err != nil {
			var ce *capture.Error
			if errors.As(err, &ce) {
				return nil, nil, &LogoError{"the PNG logo was refused: " + ce.Message}
			}
			return nil, nil, err
		}
		if img.Width > MaxLogoSide || img.Height > MaxLogoSide {
			return nil, nil, &LogoError{fmt.Sprintf("the logo is %d×%d pixels; each side must be at most %d", img.Width, img.Height, MaxLogoSide)}
		}
		return newLogo(img.Data, "image/png", img.Width, img.Height), nil, nil
	}
	out, w, h, removed, err := SanitizeSVG(data)
	if err != nil {
		return nil, nil, &LogoError{"the logo must be a PNG or an SVG image: " + err.Error()}
	}
	return newLogo(out, "image/svg+xml", w, h), removed, nil
}

func newLogo(data []byte, contentType string, w, h int) *kyc.Logo {
	sum := sha256.Sum256(data)
	return &kyc.Logo{SHA256: hex.EncodeToString(sum[:]), ContentType: contentType, Width: w, Height: h, Data: data}
}
