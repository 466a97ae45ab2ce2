package aml

import (
	"context"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// Rescreened is a manual re-screen computed outside any transaction (the
// screening is CPU work that must not hold the write lock), ready for
// RecordRescreen.
type Rescreened struct {
	orgID   string
	env     kyc.Environment
	checkID string
	results []kyc.ListResult
}

// ScreenAgain screens an existing check again, against the lists loaded
// at this moment (a list imported a moment ago included) and with the
// threshold the check was created with. NOT_FOUND and wrong_environment as
// for GET. RecordRescreen stores the result.
func (s *Service) ScreenAgain(ctx context.Context, orgID string, env kyc.Environment, id string) (*Rescreened, error) {
	// Importing the missing list is the usual way out of a failed check:
	// screen with it now rather than after the periodic reload.
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	c, err := s.store.FindAMLCheck(ctx, orgID, env, id)
	if err != nil {
		return nil, err
	}
	sub := Subject{FirstName: c.FirstName, LastName: c.LastName, DOB: c.DOB, Country: c.Country}
	start := time.Now()
	results := s.screener.Screen(c.Environment, sub.query(), c.Threshold)
	if fn := s.observe.Load(); fn != nil {
		(*fn)(env, time.Since(start))
	}
	return &Rescreened{orgID: orgID, env: env, checkID: c.ID, results: results}, nil
}

// RecordRescreen records a manual re-screen in the check's history with
// the trigger "manual" and returns the check with its history. It is how a
// failed check is retried (spec §3.2: failure is fail-closed and the call
// "can be retried"); replaying the creation's Idempotency-Key would only
// return the stored failed answer.
//
// Repeating it is harmless: each call adds one history entry and leaves
// the check as the current lists say. Events: svc.aml_check.completed
// always; svc.aml_check.match_found when the check is a potential match
// with a match it did not have before; svc.aml_check.monitoring_alert when
// the check is monitored and its status changed or a new match appeared,
// as the daily re-screen would announce it.
func (s *Service) RecordRescreen(tx *store.Tx, r *Rescreened) (*kyc.AMLCheck, error) {
	// Compare with the check as it is now: a daily re-screen may have
	// written since ScreenAgain read it.
	c, err := tx.FindAMLCheck(r.orgID, r.env, r.checkID)
	if err != nil {
		return nil, err
	}
	prev := c.Status
	sc, added, err := rescreened(tx, c, r.results, kyc.TriggerManual)
	if err != nil {
		return nil, err
	}
	if err := tx.RecordManualRescreen(c, sc); err != nil {
		return nil, err
	}
	if err := recordEvent(tx, c, kyc.EventAMLCompleted, nil, 0); err != nil {
		return nil, err
	}
	if c.Status == kyc.AMLPotentialMatch && len(added) > 0 {
		if err := recordEvent(tx, c, kyc.EventAMLMatchFound, nil, 0); err != nil {
			return nil, err
		}
	}
	if c.MonitoringEnabled && sc.Changed {
		if err := recordAlert(tx, c, &prev, len(added), sc.ChangedEntities); err != nil {
			return nil, err
		}
	}
	if c.History, err = tx.FindScreenings(c.ID); err != nil {
		return nil, err
	}
	return c, nil
}
