package aml

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"kycd/kyc"
	"kycd/store"
)

// openCase opens an AML case for a confirmed match, or, when the check
// has an open case already, records the confirmation on it. The due time
// is the organization's review SLA for the environment from now (none
// when the organization set none). It fires svc.aml_case.opened.
func openCase(tx *store.Tx, c *kyc.AMLCheck, m *kyc.MatchRecord, actor Actor) error {
	open, err := tx.OpenAMLCaseFor(c.ID)
	if err != nil {
		return err
	}
	if open != nil {
		return caseEntry(tx, open, kyc.CaseEntryConfirmed, fmt.Sprintf("Match %s (%s, %s) confirmed too.", m.ID, m.Key(), m.MatchedName), actor)
	}
	settings, err := tx.FindOrgSettings(c.OrganizationID)
	if err != nil {
		return err
	}
	cs := &kyc.AMLCase{OrganizationID: c.OrganizationID, Environment: c.Environment, CheckID: c.ID, MatchID: m.ID, MatchKey: m.Key()}
	if sla := settings.SLA(c.Environment); sla > 0 {
		due := tx.Now().Add(sla).UTC().Truncate(time.Second)
		cs.DueAt = &due
	}
	if err := tx.CreateAMLCase(cs); err != nil {
		return err
	}
	if err := caseEntry(tx, cs, kyc.CaseEntryOpened, fmt.Sprintf("Opened by the confirmed match %s (%s, %s).", m.ID, m.Key(), m.MatchedName), actor); err != nil {
		return err
	}
	return caseEvent(tx, cs, kyc.EventAMLCaseOpened)
}

// caseEntry appends a timeline entry and the same change to the audit
// chain, in the caller's transaction.
func caseEntry(tx *store.Tx, cs *kyc.AMLCase, kind kyc.AMLCaseEntryKind, text string, actor Actor) error {
	if err := tx.AddAMLCaseEntry(cs.ID, &kyc.AMLCaseEntry{Kind: kind, Text: text, ActorType: actor.Type, ActorID: actor.ID}); err != nil {
		return err
	}
	actorID, to := actor.ID, string(cs.Status)
	return tx.AppendAudit(store.AuditEntry{OrganizationID: cs.OrganizationID, Environment: cs.Environment, ResourceType: "aml_case",
		ResourceID: cs.ID, Action: "aml_case." + string(kind), ActorType: actor.Type, ActorID: &actorID, ToStatus: &to, Reason: &text})
}

// caseEvent fires an AML case event with the case's state. The body holds
// no personal data beyond ids: integrations read the case by id.
func caseEvent(tx *store.Tx, cs *kyc.AMLCase, typ kyc.EventType) error {
	ev := tx.NewEvent(cs.OrganizationID, cs.Environment, typ, cs.ID)
	var due, closed *string
	if cs.DueAt != nil {
		t := kyc.FormatTime(*cs.DueAt)
		due = &t
	}
	if cs.ClosedAt != nil {
		t := kyc.FormatTime(*cs.ClosedAt)
		closed = &t
	}
	body := map[string]any{"eventId": ev.ID, "eventType": ev.Type, "resourceId": cs.ID, "checkId": cs.CheckID, "matchId": cs.MatchID,
		"status": cs.Status, "outcome": cs.Outcome, "dueAt": due, "closedAt": closed, "sarFiled": cs.SAR != nil,
		"organizationId": cs.OrganizationID, "environment": cs.Environment, "createdAt": kyc.FormatTime(ev.CreatedAt)}
	var err error
	if ev.Payload, err = json.Marshal(body); err != nil {
		return fmt.Errorf("encode event: %w", err)
	}
	_, err = tx.RecordEvent(ev, "")
	return err
}

// CaseUpdate is a change to a case; nil fields stay as they are.
type CaseUpdate struct {
	// AssigneeID: a user id to assign, "" to unassign.
	AssigneeID *string
	// DueAt: a new due time; ClearDue removes it.
	DueAt    *time.Time
	ClearDue bool
	// Status closed with Outcome records the outcome; open reopens.
	Status  *kyc.AMLCaseStatus
	Outcome *kyc.AMLCaseOutcome
	// Note is added to the timeline (required to close or reopen: why).
	Note string
}

// MaxCaseNoteLen bounds a timeline note.
const MaxCaseNoteLen = 4000

// ValidateCaseUpdate checks an update's fields by themselves; the case's
// state is checked by UpdateCase.
func ValidateCaseUpdate(u CaseUpdate) []kyc.FieldError {
	var errs []kyc.FieldError
	if utf8.RuneCountInString(u.Note) > MaxCaseNoteLen {
		errs = append(errs, kyc.FieldError{Field: "note", Message: fmt.Sprintf("must be at most %d characters", MaxCaseNoteLen)})
	}
	if u.Status != nil && !u.Status.Valid() {
		errs = append(errs, kyc.FieldError{Field: "status", Message: "must be open or closed"})
	}
	if u.Outcome != nil && !u.Outcome.Valid() {
		errs = append(errs, kyc.FieldError{Field: "outcome", Message: "must be one of relationship_refused, relationship_exited, " +
			"relationship_continued_with_measures, reported, false_positive_after_investigation"})
	}
	closing := u.Status != nil && *u.Status == kyc.AMLCaseClosed
	switch {
	case closing && u.Outcome == nil:
		errs = append(errs, kyc.FieldError{Field: "outcome", Message: "is required to close a case"})
	case !closing && u.Outcome != nil:
		errs = append(errs, kyc.FieldError{Field: "outcome", Message: "is set only when closing (status closed)"})
	}
	if u.Status != nil && strings.TrimSpace(u.Note) == "" {
		errs = append(errs, kyc.FieldError{Field: "note", Message: "is required to close or reopen a case: say why"})
	}
	return errs
}

// UpdateCase applies an update: each change is a timeline entry and an
// audit row in this transaction; closing fires svc.aml_case.closed. The
// outcome "reported" needs the case's SAR record first.
func (s *Service) UpdateCase(tx *store.Tx, orgID string, env kyc.Environment, id string, u CaseUpdate, actor Actor) (*kyc.AMLCase, error) {
	if errs := ValidateCaseUpdate(u); len(errs) > 0 {
		return nil, kyc.Invalid(errs...)
	}
	cs, err := tx.FindAMLCase(orgID, env, id)
	if err != nil {
		return nil, err
	}
	changed := false
	if u.AssigneeID != nil {
		text := "Unassigned."
		if *u.AssigneeID == "" {
			cs.AssigneeID = nil
		} else {
			who, err := assignee(tx, orgID, *u.AssigneeID)
			if err != nil {
				return nil, err
			}
			cs.AssigneeID, text = &who.ID, fmt.Sprintf("Assigned to %s.", who.Name)
		}
		if err := caseEntry(tx, cs, kyc.CaseEntryAssigned, text, actor); err != nil {
			return nil, err
		}
		changed = true
	}
	if u.DueAt != nil || u.ClearDue {
		text := "Due time removed."
		cs.DueAt = nil
		if u.DueAt != nil {
			d := u.DueAt.UTC().Truncate(time.Second)
			cs.DueAt, text = &d, "Due "+kyc.FormatTime(d)+"."
		}
		if err := caseEntry(tx, cs, kyc.CaseEntryDue, text, actor); err != nil {
			return nil, err
		}
		changed = true
	}
	note := strings.TrimSpace(u.Note)
	var event kyc.EventType
	switch {
	case u.Status != nil && *u.Status == kyc.AMLCaseClosed:
		if cs.Status == kyc.AMLCaseClosed {
			return nil, kyc.Errorf(kyc.EInvalidTransition, "AML case %s is closed already; reopen it first.", cs.ID)
		}
		if *u.Outcome == kyc.OutcomeReported && cs.SAR == nil {
			return nil, kyc.Errorf(kyc.EUnprocessable, "Record the suspicious-activity report (reference and date) before closing the case as reported.")
		}
		now := tx.Now().UTC().Truncate(time.Second)
		cs.Status, cs.Outcome, cs.ClosedAt = kyc.AMLCaseClosed, u.Outcome, &now
		if err := caseEntry(tx, cs, kyc.CaseEntryClosed, fmt.Sprintf("Closed: %s. %s", *u.Outcome, note), actor); err != nil {
			return nil, err
		}
		event, changed = kyc.EventAMLCaseClosed, true
	case u.Status != nil && *u.Status == kyc.AMLCaseOpen:
		if cs.Status == kyc.AMLCaseOpen {
			return nil, kyc.Errorf(kyc.EInvalidTransition, "AML case %s is open already.", cs.ID)
		}
		if other, err := tx.OpenAMLCaseFor(cs.CheckID); err != nil {
			return nil, err
		} else if other != nil {
			return nil, kyc.Errorf(kyc.EConflict, "AML check %s has another open case, %s.", cs.CheckID, other.ID)
		}
		cs.Status, cs.Outcome, cs.ClosedAt = kyc.AMLCaseOpen, nil, nil
		if err := caseEntry(tx, cs, kyc.CaseEntryReopened, "Reopened. "+note, actor); err != nil {
			return nil, err
		}
		changed = true
	case note != "":
		if err := caseEntry(tx, cs, kyc.CaseEntryNote, note, actor); err != nil {
			return nil, err
		}
	}
	if !changed && note == "" {
		return nil, kyc.Invalid(kyc.FieldError{Field: "body", Message: "changes nothing: set assigneeId, dueAt, status or note"})
	}
	if changed {
		if err := tx.SaveAMLCase(cs); err != nil {
			return nil, err
		}
	}
	if event != "" {
		if err := caseEvent(tx, cs, event); err != nil {
			return nil, err
		}
	}
	return tx.FindAMLCase(orgID, env, cs.ID)
}

// assignee is a user of the organization who may work AML cases: enabled
// and allowed to decide.
func assignee(tx *store.Tx, orgID, userID string) (*kyc.User, error) {
	u, err := tx.FindUser(orgID, userID)
	if kyc.ErrorCode(err) == kyc.ENotFound {
		return nil, kyc.Invalid(kyc.FieldError{Field: "assigneeId", Message: "is not a user of this organization"})
	}
	if err != nil {
		return nil, err
	}
	if u.DisabledAt != nil || !u.Can(kyc.PermDecide) {
		return nil, kyc.Invalid(kyc.FieldError{Field: "assigneeId", Message: "must be an enabled user who may decide (reviewer or admin)"})
	}
	return u, nil
}

// SARUpload is a suspicious-activity report's record as sent.
type SARUpload struct {
	Reference string
	FiledOn   string
	FileName  string
	File      []byte // nil: no copy attached
}

// ValidateSAR checks a SAR record: a reference, a filing date that is a
// real day not in the future, and a copy (when attached) of at most
// kyc.MaxSARFileBytes whose bytes are a PDF, PNG, JPEG or XML file.
func ValidateSAR(u SARUpload, now time.Time) []kyc.FieldError {
	var errs []kyc.FieldError
	ref := strings.TrimSpace(u.Reference)
	switch {
	case ref == "":
		errs = append(errs, kyc.FieldError{Field: "reference", Message: "is required: the authority's reference of the report"})
	case utf8.RuneCountInString(ref) > kyc.MaxSARReferenceLen:
		errs = append(errs, kyc.FieldError{Field: "reference", Message: fmt.Sprintf("must be at most %d characters", kyc.MaxSARReferenceLen)})
	}
	if d, ok := kyc.ParseDate(u.FiledOn); !ok {
		errs = append(errs, kyc.FieldError{Field: "filedOn", Message: "must be a date YYYY-MM-DD"})
	} else if d.After(now.UTC()) {
		errs = append(errs, kyc.FieldError{Field: "filedOn", Message: "must not be in the future"})
	}
	if u.File != nil {
		switch {
		case len(u.File) == 0:
			errs = append(errs, kyc.FieldError{Field: "file", Message: "is empty"})
		case len(u.File) > kyc.MaxSARFileBytes:
			errs = append(errs, kyc.FieldError{Field: "file", Message: fmt.Sprintf("must be at most %d MB", kyc.MaxSARFileBytes>>20)})
		case kyc.SARContentType(u.File) == "":
			errs = append(errs, kyc.FieldError{Field: "file", Message: "must be a PDF, PNG, JPEG or XML file"})
		}
		if n := strings.TrimSpace(u.FileName); utf8.RuneCountInString(n) > 255 {
			errs = append(errs, kyc.FieldError{Field: "file", Message: "name must be at most 255 characters"})
		}
	}
	return errs
}

// RecordSAR records that a suspicious-activity report was filed for a
// case, with a sealed copy when one is attached; a later record replaces
// it (the timeline and audit keep both).
func (s *Service) RecordSAR(tx *store.Tx, orgID string, env kyc.Environment, id string, u SARUpload, actor Actor) (*kyc.AMLCase, error) {
	if errs := ValidateSAR(u, tx.Now()); len(errs) > 0 {
		return nil, kyc.Invalid(errs...)
	}
	cs, err := tx.FindAMLCase(orgID, env, id)
	if err != nil {
		return nil, err
	}
	sar := &kyc.SARRecord{Reference: strings.TrimSpace(u.Reference), FiledOn: u.FiledOn, ActorType: actor.Type, ActorID: actor.ID}
	text := fmt.Sprintf("Suspicious-activity report %s filed on %s recorded", sar.Reference, sar.FiledOn)
	if u.File != nil {
		name := strings.TrimSpace(u.FileName)
		if name == "" {
			name = "report"
		}
		sar.File = &kyc.SARFile{Name: name, ContentType: kyc.SARContentType(u.File)}
		text += fmt.Sprintf(", copy %s (%s, %d bytes)", name, sar.File.ContentType, len(u.File))
	}
	if err := tx.SetAMLCaseSAR(cs, sar, u.File); err != nil {
		return nil, err
	}
	if err := caseEntry(tx, cs, kyc.CaseEntrySAR, text+".", actor); err != nil {
		return nil, err
	}
	return tx.FindAMLCase(orgID, env, cs.ID)
}
