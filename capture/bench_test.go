package capture

import (
	"bytes"
	"encoding/binary"
	"testing"

	"kycd/internal/realdata"
)

// BenchmarkProcessPhoto processes a 3.3 MP camera JPEG (1434×2333, 596 KB,
// with a Photoshop EXIF block): the size of a phone photo of a document
// after the browser or app has scaled it. MB/s is of uploaded bytes.
func BenchmarkProcessPhoto(b *testing.B) {
	src := mustRead(b, realdata.Path(b, "images/face_obama_03_fulllength.jpg"))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Process(bytes.NewReader(src), Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProcessPhotoTurned is the same photo with its EXIF orientation
// set to 6, which adds a conversion to RGBA and a rotation.
func BenchmarkProcessPhotoTurned(b *testing.B) {
	src := bytes.Clone(mustRead(b, realdata.Path(b, "images/face_obama_03_fulllength.jpg")))
	tiff := inspectJPEG(src).exif
	val := orientationValue(tiff)
	if val == nil {
		b.Skip("the photo has no orientation entry to change")
	}
	if string(tiff[:2]) == "II" {
		val[0], val[1] = 6, 0
	} else {
		val[0], val[1] = 0, 6
	}
	got, err := Process(bytes.NewReader(src), Limits{})
	if err != nil || got.Metadata.Orientation != 6 {
		b.Fatalf("setup: %v, %+v", err, got)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Process(bytes.NewReader(src), Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// orientationValue returns the value field of IFD0's Orientation entry,
// a subslice of tiff, or nil.
func orientationValue(tiff []byte) []byte {
	if len(tiff) < 8 {
		return nil
	}
	var bo binary.ByteOrder = binary.BigEndian
	if string(tiff[:2]) == "II" {
		bo = binary.LittleEndian
	}
	ifd := int(bo.Uint32(tiff[4:]))
	if ifd+2 > len(tiff) {
		return nil
	}
	for k := range int(bo.Uint16(tiff[ifd:])) {
		e := ifd + 2 + 12*k
		if e+12 > len(tiff) {
			return nil
		}
		if bo.Uint16(tiff[e:]) == tagOrientation {
			return tiff[e+8 : e+12]
		}
	}
	return nil
}
