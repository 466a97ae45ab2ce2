package decision

import (
	"errors"
	"strings"

	"kycd/kyc"
)

// Sandbox makes no real decisions (spec §1.5): every signal still runs, so
// integrators see real processingResult shapes, but the outcome follows a
// test trigger — the applicant's last name or the request's externalRef,
// ignoring case:
//
//	approve  → approved          review → awaiting_review
//	reject   → rejected          fail   → failed (processing error)
//	anything else → approved
var sandboxTriggers = map[string]Outcome{"approve": Approve, "reject": Reject, "review": Review}

// SandboxFail is the trigger that makes processing fail.
const SandboxFail = "fail"

// PermanentError is an engine error that retrying cannot fix; processing
// fails at once.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// IsPermanent reports whether err should not be retried.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}

func sandboxOutcome(res *Result, a *kyc.Applicant, r *kyc.KYCRequest) error {
	trigger := ""
	for _, v := range []string{a.LastName, deref(r.ExternalRef)} {
		v = strings.ToLower(strings.TrimSpace(v))
		if _, ok := sandboxTriggers[v]; ok || v == SandboxFail {
			trigger = v
			break
		}
	}
	res.Processing["sandbox"] = true
	res.Processing["computedDecision"] = res.Outcome
	res.Processing["sandboxTrigger"] = trigger
	if trigger == SandboxFail {
		return &PermanentError{Err: errors.New("sandbox: the test trigger \"fail\" makes processing fail")}
	}
	out, ok := sandboxTriggers[trigger]
	if !ok {
		out = Approve
	}
	res.Outcome = out
	res.Reason = "Sandbox test decision (" + string(out) + "): sandbox makes no real decisions; the signals show what live would compute (" + string(res.Processing["computedDecision"].(Outcome)) + ")."
	res.Processing["decision"] = out
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
