package ocr

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kycd/capture"
)

// exifJPEG is m as a JPEG whose EXIF block (big-endian TIFF, one IFD0
// entry) says orientation o.
func exifJPEG(t *testing.T, m image.Image, o uint16) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	be := binary.BigEndian
	tiff := []byte("MM\x00\x2a\x00\x00\x00\x08")
	tiff = be.AppendUint16(tiff, 1)      // one entry
	tiff = be.AppendUint16(tiff, 0x0112) // Orientation
	tiff = be.AppendUint16(tiff, 3)      // SHORT
	tiff = be.AppendUint32(tiff, 1)
	tiff = be.AppendUint16(tiff, o)
	tiff = be.AppendUint16(tiff, 0)
	tiff = be.AppendUint32(tiff, 0) // no next IFD
	payload := append([]byte("Exif\x00\x00"), tiff...)
	seg := be.AppendUint16([]byte{0xFF, 0xE1}, uint16(len(payload)+2))
	seg = append(seg, payload...)
	jpg := buf.Bytes()
	return append(append(append([]byte(nil), jpg[:2]...), seg...), jpg[2:]...)
}

// TestReadEXIFRotatedUpload: a phone stores a portrait shot of a passport
// sideways and says so only in EXIF. The upload path (capture) turns it
// upright once, so the reader sees the zone level: read exactly, at about
// 0° (not 90°: the reader is not left to find the turn itself).
func TestReadEXIFRotatedUpload(t *testing.T) {
	dir, gt := loadTruth(t)
	const name = "doc_td3_ltu_passport_specimen.jpg"
	var want []string
	for _, g := range gt {
		if g.Image == name {
			want = g.MRZ
		}
	}
	img := decodeFile(t, filepath.Join(dir, name))
	// Stored turned 90° counter-clockwise; orientation 6 says "turn 90°
	// clockwise to display".
	stored := rotate(img, -90)
	c, err := capture.Process(bytes.NewReader(exifJPEG(t, stored, 6)), capture.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Metadata.Orientation != 6 {
		t.Fatalf("capture read orientation %d, want 6", c.Metadata.Orientation)
	}
	up, _, err := image.Decode(bytes.NewReader(c.Data))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Read(up, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusRead || !slices.Equal(r.Lines, want) {
		t.Fatalf("EXIF-rotated upload: %s %s %v", r.Status, r.Hint, r.Lines)
	}
	if d := math.Abs(math.Mod(r.Rotation+180, 360) - 180); d > 5 {
		t.Errorf("zone at %.1f°, want about 0°: the EXIF orientation was not applied", r.Rotation)
	}
}
