package capture

import (
	"bytes"
	"encoding/binary"
)

// The walkers below find metadata in the container of each format. They
// only slice b, never allocate from a length the file declares, and stop at
// the first length that points past the end: the decoder, not they, decides
// whether such a file is corrupt.

// jpegInfo is what a walk over a JPEG's marker segments finds.
type jpegInfo struct {
	exif  []byte // TIFF block of the first "Exif" APP1 segment, or nil
	scans int    // SOS markers before EOI
	// From the first frame header (SOF0-2), for the decoding budget.
	progressive bool
	comps       []sampling // one per component; nil without a frame header
	// adobe is the transform byte of an Adobe APP14 segment, -1 without one;
	// 0 makes a three-component image RGB, which image/jpeg converts to RGBA.
	adobe int
	jfif  bool // a JFIF APP0 segment: the components are YCbCr
}

// sampling is one frame component's id and sampling factors.
type sampling struct{ id, h, v int }

// inspectJPEG walks b the way image/jpeg reads it: segments with a length,
// entropy-coded data after each SOS, extraneous bytes between markers
// skipped (image/jpeg tolerates them, so the count must not stop at them),
// and nothing after EOI.
func inspectJPEG(b []byte) jpegInfo {
	info := jpegInfo{adobe: -1}
	i := 2 // past SOI
	for {
		i = nextMarker(b, i)
		if i < 0 {
			return info
		}
		m := b[i+1]
		switch {
		case m == 0xD9: // EOI
			return info
		case m == 0x01 || m >= 0xD0 && m <= 0xD8: // TEM, RSTn, SOI: no length
			i += 2
			continue
		}
		if i+4 > len(b) {
			return info
		}
		end := i + 2 + int(binary.BigEndian.Uint16(b[i+2:]))
		if end < i+4 || end > len(b) {
			return info
		}
		seg := b[i+4 : end]
		switch {
		case m == 0xE1 && info.exif == nil && len(seg) >= 6 && string(seg[:5]) == "Exif\x00":
			info.exif = seg[6:]
		case m == 0xE0 && len(seg) >= 5 && string(seg[:5]) == "JFIF\x00":
			info.jfif = true
		case m == 0xEE && len(seg) >= 12 && string(seg[:5]) == "Adobe":
			info.adobe = int(seg[11])
		case m >= 0xC0 && m <= 0xC2 && info.comps == nil && len(seg) >= 6:
			info.progressive = m == 0xC2
			n := int(seg[5])
			for c := range n {
				if 6+3*c+2 >= len(seg) {
					break
				}
				hv := seg[6+3*c+1]
				info.comps = append(info.comps, sampling{id: int(seg[6+3*c]), h: int(hv >> 4), v: int(hv & 0x0F)})
			}
		}
		i = end
		if m == 0xDA {
			info.scans++
			i = skipEntropy(b, i)
		}
	}
}

// nextMarker returns the index of the next marker (0xFF then a byte that
// is neither 0x00 nor 0xFF) at or after i, or -1.
func nextMarker(b []byte, i int) int {
	for i < len(b) {
		j := bytes.IndexByte(b[i:], 0xFF)
		if j < 0 {
			return -1
		}
		i += j
		if i+1 >= len(b) {
			return -1
		}
		if m := b[i+1]; m != 0x00 && m != 0xFF {
			return i
		}
		i++ // 0xFF00 is a stuffed byte; 0xFFFF is fill before a marker
	}
	return -1
}

// skipEntropy returns the index of the first marker after the entropy-coded
// data starting at i; restart markers belong to the data.
func skipEntropy(b []byte, i int) int {
	for {
		i = nextMarker(b, i)
		if i < 0 {
			return len(b)
		}
		if m := b[i+1]; m < 0xD0 || m > 0xD7 {
			return i
		}
		i += 2
	}
}

// pngEXIF returns the payload of the first eXIf chunk before IDAT, or nil.
// Browsers ignore an eXIf chunk after the image data, and so do we.
func pngEXIF(b []byte) []byte {
	i := len(pngSignature)
	for i+8 <= len(b) {
		n := uint64(binary.BigEndian.Uint32(b[i:]))
		typ := string(b[i+4 : i+8])
		end := uint64(i) + 8 + n
		if typ == "IDAT" || typ == "IEND" || end > uint64(len(b)) {
			return nil
		}
		if typ == "eXIf" {
			return b[i+8 : end]
		}
		i = int(end) + 4 // the CRC
	}
	return nil
}

// pngInfo is what the chunks before a PNG's image data say about how it
// decodes.
type pngInfo struct {
	interlaced bool // Adam7: image/png decodes each pass on its own, then merges
	tRNS       bool // image/png decodes grey and RGB with tRNS as NRGBA
}

// inspectPNG reads the IHDR interlace method and looks for tRNS before IDAT.
func inspectPNG(b []byte) pngInfo {
	var info pngInfo
	i := len(pngSignature)
	for i+8 <= len(b) {
		n := uint64(binary.BigEndian.Uint32(b[i:]))
		typ := string(b[i+4 : i+8])
		end := uint64(i) + 8 + n
		if typ == "IDAT" || typ == "IEND" || end > uint64(len(b)) {
			break
		}
		switch {
		case typ == "IHDR" && n >= 13:
			info.interlaced = b[i+8+12] != 0
		case typ == "tRNS":
			info.tRNS = true
		}
		i = int(end) + 4
	}
	return info
}

// webpEXIF returns the payload of the first EXIF chunk of a WebP, or nil.
// Some writers put JPEG's "Exif\0\0" prefix in front of the TIFF block.
func webpEXIF(b []byte) []byte {
	for i := 12; i+8 <= len(b); {
		n := uint64(binary.LittleEndian.Uint32(b[i+4:]))
		end := uint64(i) + 8 + n
		if end > uint64(len(b)) {
			return nil
		}
		if string(b[i:i+4]) == "EXIF" {
			return bytes.TrimPrefix(b[i+8:end], []byte("Exif\x00\x00"))
		}
		i = int(end + n&1) // chunks are padded to an even length
	}
	return nil
}

// webpAnimated reports whether the VP8X header of a WebP sets the
// animation flag. golang.org/x/image/webp cannot decode animations.
func webpAnimated(b []byte) bool {
	return len(b) >= 21 && string(b[12:16]) == "VP8X" && b[20]&0x02 != 0
}
