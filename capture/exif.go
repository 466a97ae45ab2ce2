package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// exifInfo is the little we read from an EXIF block.
type exifInfo struct {
	Orientation int    // 1-8, or 0 when absent or invalid
	Software    string // cleaned for display and logs
	HasGPS      bool   // IFD0 points to a GPS IFD
}

// TIFF tags of IFD0 that we read.
const (
	tagOrientation = 0x0112
	tagSoftware    = 0x0131
	tagGPSIFD      = 0x8825
)

// maxSoftware bounds the Software string we keep: enough for any real
// "Adobe Photoshop 25.1 (Windows)", short enough to be harmless in a log.
const maxSoftware = 128

// parseEXIF reads Orientation, Software and the GPS pointer from IFD0 of
// the TIFF block b (an EXIF payload without its "Exif\0\0" prefix).
// Every offset comes from the uploader, so each is checked against len(b)
// in 64-bit arithmetic before use, and only IFD0 is read: there is no
// chain or sub-IFD to follow, hence no loop to exploit.
// An entry that is malformed is skipped and reported in the error, and
// the rest of the block is still read: cameras write odd EXIF often
// enough that a bad tag must not cost the applicant the upload.
func parseEXIF(b []byte) (exifInfo, error) {
	var info exifInfo
	if len(b) < 8 {
		return info, errors.New("exif: shorter than a TIFF header")
	}
	var bo binary.ByteOrder
	switch string(b[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return info, fmt.Errorf("exif: bad TIFF header %q", b[:4])
	}
	ifd := uint64(bo.Uint32(b[4:]))
	if ifd+2 > uint64(len(b)) {
		return info, fmt.Errorf("exif: IFD0 offset %d past the end (%d bytes)", ifd, len(b))
	}
	n := uint64(bo.Uint16(b[ifd:]))
	var errs []error
	if fit := (uint64(len(b)) - ifd - 2) / 12; n > fit {
		errs = append(errs, fmt.Errorf("exif: IFD0 claims %d entries, %d fit", n, fit))
		n = fit
	}
	var seenOrientation, seenSoftware bool // the first of duplicated tags wins
	for k := range n {
		e := b[ifd+2+12*k:][:12]
		tag, typ, count, val := bo.Uint16(e), bo.Uint16(e[2:]), uint64(bo.Uint32(e[4:])), e[8:12]
		switch tag {
		case tagOrientation:
			if seenOrientation {
				continue
			}
			seenOrientation = true
			o, err := readOrientation(bo, typ, count, val)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			info.Orientation = o
		case tagSoftware:
			if seenSoftware {
				continue
			}
			seenSoftware = true
			s, err := readASCII(b, bo, typ, count, val)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			info.Software = cleanText(s)
		case tagGPSIFD:
			// The pointer is the signal: a phone that wrote one had
			// location on, whatever the sub-IFD holds.
			info.HasGPS = true
		}
	}
	return info, errors.Join(errs...)
}

func readOrientation(bo binary.ByteOrder, typ uint16, count uint64, val []byte) (int, error) {
	var o uint32
	switch {
	case typ == 3 && count == 1: // SHORT, as the standard says
		o = uint32(bo.Uint16(val))
	case typ == 4 && count == 1: // LONG, written by some broken tools
		o = bo.Uint32(val)
	default:
		return 0, fmt.Errorf("exif: orientation has type %d count %d", typ, count)
	}
	if o < 1 || o > 8 {
		return 0, fmt.Errorf("exif: orientation %d out of range", o)
	}
	return int(o), nil
}

// readASCII returns the bytes of an ASCII (type 2) or UNDEFINED (type 7)
// value: inline when it fits in 4 bytes, else at the offset it names.
func readASCII(b []byte, bo binary.ByteOrder, typ uint16, count uint64, val []byte) (string, error) {
	if typ != 2 && typ != 7 {
		return "", fmt.Errorf("exif: software has type %d", typ)
	}
	if count <= 4 {
		return string(val[:count]), nil
	}
	off := uint64(bo.Uint32(val))
	if off+count > uint64(len(b)) {
		return "", fmt.Errorf("exif: software at %d+%d past the end (%d bytes)", off, count, len(b))
	}
	return string(b[off : off+count]), nil
}

// cleanText makes an uploader's string safe to show and log: it ends at
// the first NUL, loses control, format and invalid characters, and is cut
// to maxSoftware bytes.
func cleanText(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	s = strings.Map(func(r rune) rune {
		// Cf holds the bidirectional overrides that make a log line or
		// a dashboard cell read differently from what it contains.
		if r == unicode.ReplacementChar || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	s = strings.TrimSpace(s)
	if len(s) > maxSoftware {
		s = strings.TrimSpace(strings.ToValidUTF8(s[:maxSoftware], "")) // drops a rune cut in half
	}
	return s
}
