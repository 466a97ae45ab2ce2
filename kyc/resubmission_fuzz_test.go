package kyc

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzResubmissionInput: whatever a client sends as step, message and
// link lifetime, Validate never panics, and what it accepts is one of the
// steps, a message of 3 to 1,000 characters of valid UTF-8 with no
// invisible or NUL character, and a lifetime of 0 or 1 to 336 hours.
func FuzzResubmissionInput(f *testing.F) {
	f.Add("selfie", "Please take it again.", int64(0), "standard", "passport")
	f.Add("document_back", "Bitte \xff\xfe noch einmal.", int64(time.Hour), "document_only", "id_card")
	f.Add("liveness", "ok\u202e!", int64(-1), "standard", "")
	f.Add("document_front", "a\x00b\x00c", int64(337*time.Hour), "standard", "driving_licence")
	f.Fuzz(func(t *testing.T, step, message string, ttl int64, wf, docType string) {
		in := ResubmissionInput{Step: ResubmissionStep(step), Message: message, TTL: time.Duration(ttl)}
		if errs := in.Validate(WorkflowType(wf), docType); len(errs) > 0 {
			return
		}
		known := false
		for _, s := range ResubmissionSteps {
			known = known || s == in.Step
		}
		n := utf8.RuneCountInString(message)
		switch {
		case !known:
			t.Errorf("accepted step %q", step)
		case n < 3 || n > MaxResubmissionMessage:
			t.Errorf("accepted a message of %d characters", n)
		case !utf8.ValidString(message):
			t.Errorf("accepted a message that is not UTF-8: %q", message)
		case strings.ContainsRune(message, 0):
			t.Errorf("accepted a message with NUL: %q", message)
		case in.TTL != 0 && (in.TTL < time.Hour || in.TTL > MaxResubmissionTTL):
			t.Errorf("accepted a lifetime of %v", in.TTL)
		}
	})
}
