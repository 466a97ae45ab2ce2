package capture

import (
	"errors"
	"fmt"
)

// Refusal codes. They are stable: the server and the portal switch on them.
const (
	ETooLarge        = "too_large"        // more bytes than Limits.MaxBytes
	EUnsupportedType = "unsupported_type" // not JPEG, PNG or WebP (HEIC, PDF, GIF, animated WebP…)
	ETooManyPixels   = "too_many_pixels"  // over Limits.MaxPixels, or one side over maxSide
	ETooSmall        = "too_small"        // a side under Limits.MinSide
	ECorrupt         = "corrupt"          // the bytes do not decode to a whole image
)

// Error says why an upload was refused. Code is one of the E* constants;
// Message is written for the applicant. Err is the underlying cause (a
// decoder error, say): it is for logs, never for the applicant.
type Error struct {
	Code    string
	Message string
	// Costly marks an ETooManyPixels refusal of an image within the pixel
	// limit that would still take more memory than allowed to process
	// (16 bits per channel, a progressive JPEG at full colour resolution):
	// fewer pixels is not the only remedy, and the applicant is told so.
	Costly bool
	Err    error
}

func (e *Error) Error() string {
	s := "capture: " + e.Code + ": " + e.Message
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

func refuse(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func corrupt(err error) *Error {
	return &Error{
		Code:    ECorrupt,
		Message: "The image is damaged or incomplete. Take the photo again or export it again, then upload it.",
		Err:     err,
	}
}

// sizeText writes a byte count the way an applicant reads it.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ErrorCode returns the code of the *Error in err's chain, or "" when there
// is none (a read error, say).
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
