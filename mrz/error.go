package mrz

import "errors"

// Error codes: stable, for the server and the portal to switch on.
const (
	ELayout    = "layout"    // no single block of lines has the size of an MRZ
	ECharacter = "character" // a character the MRZ grammar does not allow in its position
	EDate      = "date"      // a birth or expiry date that is not in the calendar
)

// Error says why a text is not an MRZ. Message is written for the
// applicant who typed it. Line and Column (1-based) point into the zone as
// cleaned up (spaces, blank and noise lines dropped: what Document.Lines
// would have held); they are 0 when the error is about the whole text.
type Error struct {
	Code         string
	Line, Column int
	Message      string
}

func (e *Error) Error() string { return "mrz: " + e.Code + ": " + e.Message }

// ErrorCode returns the code of the *Error in err's chain, or "" when
// there is none.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
