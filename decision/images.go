package decision

import (
	"image"

	"kycd/kyc"
)

// ImageSignals are the per-image signals of the automated engine: quality
// and face presence.
func ImageSignals(c kyc.Capture, img image.Image) []Signal {
	return []Signal{ImageQuality(c.ID, c.Kind, img), FacePresence(c.ID, c.Kind, img)}
}
