// Package aml runs AML checks: it screens people with the screening
// engine, stores checks and their monitoring history, fires the AML
// webhook events, keeps the loaded watch lists in step with the database
// and re-screens monitored checks.
package aml

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// Service is the AML use cases over one store and one screener.
type Service struct {
	store    *store.Store
	screener *screening.Screener
	log      *slog.Logger

	refreshMu sync.Mutex // one list reload at a time
	// lost are the kinds that had a list once and have none now (see
	// LostKinds), computed at each reload.
	lost    atomic.Pointer[[]screening.Kind]
	observe atomic.Pointer[func(env kyc.Environment, took time.Duration)]
}

// ObserveScreenings makes Screen call fn with the environment and the time
// the screener took (the server's latency histogram). Monitoring
// re-screens are batch work and are not reported. A later call replaces fn.
func (s *Service) ObserveScreenings(fn func(env kyc.Environment, took time.Duration)) {
	s.observe.Store(&fn)
}

// New returns a service. Call Refresh before serving, so live screening
// has the imported lists.
func New(st *store.Store, sc *screening.Screener, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: st, screener: sc, log: log}
}

// Screener is the screening engine the service uses (KYC screening shares
// it).
func (s *Service) Screener() *screening.Screener { return s.screener }

// Subject is who a check screens.
type Subject struct {
	FirstName, LastName string
	DOB, Country        *string
}

func (sub Subject) query() screening.Query {
	q := screening.Query{Name: strings.TrimSpace(sub.FirstName) + " " + strings.TrimSpace(sub.LastName)}
	if sub.DOB != nil {
		q.DOB = *sub.DOB
	}
	if sub.Country != nil {
		q.Country = *sub.Country
	}
	return q
}

// Screened is a screening done outside any transaction (it is CPU work
// that must not hold the write lock), ready to be recorded.
type Screened struct {
	Subject   Subject
	Threshold float64
	Results   []kyc.ListResult
}

// Screen screens a subject with the organization's threshold.
func (s *Service) Screen(ctx context.Context, orgID string, env kyc.Environment, sub Subject) (*Screened, error) {
	th, err := s.store.AMLThreshold(ctx, orgID, screening.DefaultThreshold)
	if err != nil {
		return nil, err
	}
	scope, err := s.Scope(ctx, orgID, env)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	results := s.screener.ScreenKinds(env, sub.query(), th, scope)
	kyc.AssignMatchIDs(results)
	if fn := s.observe.Load(); fn != nil {
		(*fn)(env, time.Since(start))
	}
	return &Screened{Subject: sub, Threshold: th, Results: results}, nil
}

// Scope returns the list kinds the organization screens in env: its AML
// kinds setting, or by default sanctions plus every kind that has at
// least one list loaded (in sandbox every kind, since the sandbox test
// list covers all three).
func (s *Service) Scope(ctx context.Context, orgID string, env kyc.Environment) ([]screening.Kind, error) {
	kinds, err := s.store.AMLKinds(ctx, orgID)
	if err != nil {
		return nil, err
	}
	if kinds != nil {
		out := make([]screening.Kind, 0, len(kinds))
		for _, k := range kinds {
			out = append(out, screening.Kind(k))
		}
		return out, nil
	}
	if env == kyc.Sandbox {
		return screening.Kinds, nil
	}
	// A lost kind stays in the default scope: with no list left, its
	// results answer error (fail closed) rather than leave the scope
	// quietly and make checks look clear.
	lost := s.LostKinds()
	out := []screening.Kind{screening.Sanctions}
	for _, k := range screening.Kinds {
		if k != screening.Sanctions && (slices.Contains(s.screener.LoadedKinds(), k) || slices.Contains(lost, k)) {
			out = append(out, k)
		}
	}
	return out, nil
}

// LostKinds are the list kinds the installation had a list of and has
// none now (a source's kind was changed, confirmed): every organization
// that screens the default scope, or chose the kind, gets error results
// for it until a list of that kind is imported. The console's Watch lists
// page and the kycd_list_kind_lost metric show them.
func (s *Service) LostKinds() []screening.Kind {
	if p := s.lost.Load(); p != nil {
		return *p
	}
	return nil
}

// Create records a new check from a screening, with its first history
// entry, and fires svc.aml_check.completed (and match_found on a
// potential match with a match that is not a suppressed false positive)
// in the same transaction.
func (s *Service) Create(tx *store.Tx, orgID string, env kyc.Environment, sc *Screened, monitoring bool) (*kyc.AMLCheck, error) {
	return s.create(tx, orgID, env, sc, monitoring, true)
}

// create is Create; a batch's checks leave out svc.aml_check.completed
// (svc.aml_batch.completed stands for all of them) but keep match_found.
func (s *Service) create(tx *store.Tx, orgID string, env kyc.Environment, sc *Screened, monitoring, completedEvent bool) (*kyc.AMLCheck, error) {
	c := &kyc.AMLCheck{OrganizationID: orgID, Environment: env, FirstName: strings.TrimSpace(sc.Subject.FirstName),
		LastName: strings.TrimSpace(sc.Subject.LastName), DOB: sc.Subject.DOB, Country: sc.Subject.Country,
		MonitoringEnabled: monitoring, Threshold: sc.Threshold, Results: sc.Results}
	c.Status, c.RiskLevel, c.MatchCount = kyc.RollUp(c.Results)
	if err := applySuppressions(tx, c, nil); err != nil {
		return nil, err
	}
	hist := &kyc.Screening{Trigger: kyc.TriggerInitial, Status: c.Status, RiskLevel: c.RiskLevel, MatchCount: c.MatchCount,
		NewMatches: matchKeys(c.Results), ListVersions: versionIDs(c.Results), Changed: true}
	if err := tx.CreateAMLCheck(c, hist); err != nil {
		return nil, err
	}
	if err := tx.Meter(orgID, env, kyc.UsageAMLChecks, c.ID); err != nil {
		return nil, err
	}
	c.History = []kyc.Screening{*hist}
	if completedEvent {
		if err := recordEvent(tx, c, kyc.EventAMLCompleted, nil, 0); err != nil {
			return nil, err
		}
	}
	// A potential match whose every match is a suppressed false positive
	// needs nobody: no match_found.
	if c.Status == kyc.AMLPotentialMatch && kyc.Unsuppressed(c.Results) > 0 {
		if err := recordEvent(tx, c, kyc.EventAMLMatchFound, nil, 0); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// recordEvent stores an AML event and its deliveries (the outbox).
func recordEvent(tx *store.Tx, c *kyc.AMLCheck, typ kyc.EventType, prev *kyc.AMLStatus, newMatches int) error {
	return recordEventChanges(tx, c, typ, prev, newMatches, nil)
}

// recordAlert fires monitoring_alert, naming the decided matches whose
// listed entity changed.
func recordAlert(tx *store.Tx, c *kyc.AMLCheck, prev *kyc.AMLStatus, newMatches int, changed []kyc.EntityChange) error {
	return recordEventChanges(tx, c, kyc.EventAMLMonitoringAlert, prev, newMatches, changed)
}

func recordEventChanges(tx *store.Tx, c *kyc.AMLCheck, typ kyc.EventType, prev *kyc.AMLStatus, newMatches int, changed []kyc.EntityChange) error {
	ev := tx.NewEvent(c.OrganizationID, c.Environment, typ, c.ID)
	summaries := make([]map[string]any, 0, len(c.Results))
	for _, r := range c.Results {
		summaries = append(summaries, map[string]any{"checkType": r.CheckType, "provider": r.Provider,
			"status": r.Status, "riskLevel": r.RiskLevel, "matchCount": r.MatchCount})
	}
	body := map[string]any{
		"eventId": ev.ID, "eventType": typ, "resourceId": c.ID, "publicId": c.PublicID, "status": c.Status,
		"riskLevel": c.RiskLevel, "matchCount": c.MatchCount, "results": summaries, "monitoringEnabled": c.MonitoringEnabled,
		"organizationId": c.OrganizationID, "environment": c.Environment, "createdAt": kyc.FormatTime(ev.CreatedAt),
	}
	if typ == kyc.EventAMLMonitoringAlert {
		body["previousStatus"], body["newMatchCount"] = prev, newMatches
		if changed == nil {
			changed = []kyc.EntityChange{}
		}
		body["changedEntities"] = changed
	}
	var err error
	if ev.Payload, err = json.Marshal(body); err != nil {
		return fmt.Errorf("encode event: %w", err)
	}
	_, err = tx.RecordEvent(ev, "")
	return err
}

func matchKeys(results []kyc.ListResult) []string {
	var keys []string
	for _, r := range results {
		for i := range r.Matches {
			keys = append(keys, r.Matches[i].Key())
		}
	}
	return keys
}

func versionIDs(results []kyc.ListResult) []string {
	var ids []string
	for _, r := range results {
		for _, l := range r.Lists {
			ids = append(ids, l.ID)
		}
	}
	return ids
}

// ScreenPerson screens a KYC applicant with the organization's threshold
// (the decision engine's AML signal; its results become the request's
// screenings).
func (s *Service) ScreenPerson(ctx context.Context, orgID string, env kyc.Environment, firstName, lastName string, dob, country *string) ([]kyc.ListResult, error) {
	sc, err := s.Screen(ctx, orgID, env, Subject{FirstName: firstName, LastName: lastName, DOB: dob, Country: country})
	if err != nil {
		return nil, err
	}
	return sc.Results, nil
}
