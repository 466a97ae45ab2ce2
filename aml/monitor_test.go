package aml_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kycd/aml"
	"kycd/kyc"
	"kycd/screening"
	"kycd/seal"
	"kycd/store"
	"kycd/store/storetest"
)

type env struct {
	t     *testing.T
	st    *store.Store
	clock *storetest.Clock
	svc   *aml.Service
	org   storetest.Org
}

func newEnv(t *testing.T) *env {
	st := storetest.Open(t)
	clock := &storetest.Clock{}
	st.Now = clock.Now
	sc, err := screening.NewScreener()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, st: st, clock: clock, svc: aml.New(st, sc, nil), org: storetest.MustOrg(t, st, "org", nil)}
	box, err := seal.New(bytes.Repeat([]byte{1}, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	// An endpoint in live, so events become deliveries we can count.
	err = st.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.CreateWebhookEndpoint(box, store.NewWebhookEndpoint{OrganizationID: e.org.ID, Environment: kyc.Live, URL: "https://example.com/h"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// importList writes a CSV list and imports it, then reloads the service.
func (e *env) importList(source string, kind screening.Kind, body string) *aml.ImportResult {
	e.t.Helper()
	f := filepath.Join(e.t.TempDir(), source+".csv")
	if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
		e.t.Fatal(err)
	}
	// These lists of a few names shrink by design (delistings):
	// confirmed, as an operator would (the guard is TestImportRefusesShrinkAndKindChange's).
	res, err := aml.Import(e.t.Context(), e.st, aml.ImportSpec{Source: source, Kind: kind, Format: "csv", Files: []string{f}, AllowShrink: true})
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func (e *env) create(first, last string, monitoring bool) *kyc.AMLCheck {
	e.t.Helper()
	sc, err := e.svc.Screen(e.t.Context(), e.org.ID, kyc.Live, aml.Subject{FirstName: first, LastName: last})
	if err != nil {
		e.t.Fatal(err)
	}
	var c *kyc.AMLCheck
	err = e.st.InTx(e.t.Context(), func(tx *store.Tx) (err error) {
		c, err = e.svc.Create(tx, e.org.ID, kyc.Live, sc, monitoring)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *env) get(id string) *kyc.AMLCheck {
	e.t.Helper()
	c, err := e.st.FindAMLCheck(context.Background(), e.org.ID, kyc.Live, id)
	if err != nil {
		e.t.Fatal(err)
	}
	if c.History, err = e.st.FindScreenings(context.Background(), c.ID); err != nil {
		e.t.Fatal(err)
	}
	return c
}

// alerts returns the monitoring_alert payloads sent so far.
func (e *env) alerts() []map[string]any {
	e.t.Helper()
	ds, _, err := e.st.FindDeliveries(context.Background(), e.org.ID, kyc.Live,
		store.DeliveryFilter{EventType: string(kyc.EventAMLMonitoringAlert), Page: 1, Size: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []map[string]any
	for _, d := range ds {
		full, err := e.st.FindDelivery(context.Background(), e.org.ID, kyc.Live, d.ID)
		if err != nil {
			e.t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(full.Payload, &m); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func (e *env) rescreenAll() int {
	e.t.Helper()
	total := 0
	for {
		n, err := e.svc.RescreenDue(e.t.Context(), 2)
		if err != nil {
			e.t.Fatal(err)
		}
		total += n
		if n == 0 {
			return total
		}
	}
}

const pepCSV = "name,reference\nPepe Politico,P-1\n"
const mediaCSV = "name,reference\nMedia Person,M-1\n"

// TestMonitoringAlertsOnListChange: a new list version makes monitored
// checks due at once; a check that now matches changes status and fires
// monitoring_alert; unchanged checks and unmonitored ones fire nothing.
func TestMonitoringAlertsOnListChange(t *testing.T) {
	e := newEnv(t)
	e.importList("in-house", screening.Sanctions, "name,reference\nIvan Sidorov,S-1\n")
	e.importList("peps", screening.PEP, pepCSV)
	e.importList("media", screening.AdverseMedia, mediaCSV)
	if err := e.svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	ivan := e.create("Ivan", "Sidorov", true)
	petr := e.create("Petr", "Kuznetsov", true)
	anna := e.create("Anna", "Karenina", false)
	if ivan.Status != kyc.AMLPotentialMatch || petr.Status != kyc.AMLNoMatch || anna.Status != kyc.AMLNoMatch {
		t.Fatalf("initial: %s %s %s", ivan.Status, petr.Status, anna.Status)
	}
	if n := e.rescreenAll(); n != 0 {
		t.Fatalf("%d checks re-screened before anything was due", n)
	}

	// An hour later the list gains Petr.
	e.clock.Advance(time.Hour)
	// Ivan also gains a second listing: a new match with no status change,
	// which is an alert too.
	v2 := e.importList("in-house", screening.Sanctions, "name,reference\nIvan Sidorov,S-1\nPetr Kuznetsov,S-2\nIvan Sidorow,S-3\n")
	if n := e.rescreenAll(); n != 2 {
		t.Fatalf("re-screened %d checks after the import, want the 2 monitored", n)
	}
	p := e.get(petr.ID)
	if p.Status != kyc.AMLPotentialMatch || len(p.History) != 2 {
		t.Fatalf("petr after import: %s, %d history entries", p.Status, len(p.History))
	}
	h := p.History[1]
	if h.Trigger != kyc.TriggerListUpdate || !h.Changed || len(h.NewMatches) != 1 || h.NewMatches[0] != "in-house/S-2" ||
		*h.PreviousStatus != kyc.AMLNoMatch {
		t.Errorf("history entry: %+v", h)
	}
	found := false
	for _, id := range h.ListVersions {
		found = found || id == v2.Version.ID
	}
	if !found {
		t.Errorf("history does not name the new version %s: %v", v2.Version.ID, h.ListVersions)
	}
	if !p.LastScreenedAt.Equal(e.clock.Now()) || !p.NextScreenAt.Equal(e.clock.Now().Add(24*time.Hour)) {
		t.Errorf("petr times: last %v next %v", p.LastScreenedAt, p.NextScreenAt)
	}
	alerts := map[string]map[string]any{}
	for _, a := range e.alerts() {
		alerts[a["resourceId"].(string)] = a
	}
	if a := alerts[petr.ID]; len(alerts) != 2 || a["previousStatus"] != "no_match" ||
		a["status"] != "potential_match" || a["newMatchCount"] != float64(1) {
		t.Fatalf("alerts: %v", alerts)
	}
	if a := alerts[ivan.ID]; a["previousStatus"] != "potential_match" || a["status"] != "potential_match" || a["newMatchCount"] != float64(1) {
		t.Errorf("new match without a status change: %v", a)
	}
	if i := e.get(ivan.ID); len(i.History) != 2 || !i.History[1].Changed || i.History[1].NewMatches[0] != "in-house/S-3" {
		t.Errorf("ivan history %+v", i.History)
	}
	if a := e.get(anna.ID); len(a.History) != 1 {
		t.Errorf("unmonitored check was re-screened: %+v", a.History)
	}

	// A day later: the daily re-screen, nothing new, no alert.
	e.clock.Advance(24 * time.Hour)
	if n := e.rescreenAll(); n != 2 {
		t.Fatalf("daily re-screen took %d checks", n)
	}
	if p := e.get(petr.ID); p.History[2].Trigger != kyc.TriggerDaily || p.History[2].Changed {
		t.Errorf("daily entry %+v", p.History[2])
	}
	if n := len(e.alerts()); n != 2 {
		t.Errorf("%d alerts after an unchanged daily re-screen", n)
	}

	// Petr and Ivan's second listing are delisted: Petr's status changes
	// back (an alert); Ivan only loses a match (no alert).
	e.clock.Advance(time.Hour)
	e.importList("in-house", screening.Sanctions, "name,reference\nIvan Sidorov,S-1\n")
	e.rescreenAll()
	p = e.get(petr.ID)
	last := p.History[len(p.History)-1]
	if p.Status != kyc.AMLNoMatch || !last.Changed || len(last.RemovedMatches) != 1 || len(e.alerts()) != 3 {
		t.Errorf("after delisting: %s %+v, %d alerts", p.Status, last, len(e.alerts()))
	}
}

// TestMonitoringResumes: work left when a run stops (a restart) is picked
// up by the next service, because each check's due time is in the row.
func TestMonitoringResumes(t *testing.T) {
	e := newEnv(t)
	e.importList("in-house", screening.Sanctions, "name,reference\nIvan Sidorov,S-1\n")
	e.importList("peps", screening.PEP, pepCSV)
	e.importList("media", screening.AdverseMedia, mediaCSV)
	if err := e.svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range []string{"Anna", "Boris", "Clara", "Dmitri", "Elena"} {
		ids = append(ids, e.create(n, "Test", true).ID)
	}
	e.clock.Advance(25 * time.Hour)
	if n, err := e.svc.RescreenDue(t.Context(), 2); err != nil || n != 2 {
		t.Fatalf("first batch: %d %v", n, err)
	}
	// "Restart": a new service over the same store.
	sc, err := screening.NewScreener()
	if err != nil {
		t.Fatal(err)
	}
	e.svc = aml.New(e.st, sc, nil)
	if err := e.svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := e.rescreenAll(); n != 3 {
		t.Fatalf("after restart %d re-screened, want the 3 left", n)
	}
	for _, id := range ids {
		if c := e.get(id); len(c.History) != 2 {
			t.Errorf("%s: %d history entries, want 2", id, len(c.History))
		}
	}
}

// TestRefreshSeesImports: a running service picks up a CLI import.
func TestRefreshSeesImports(t *testing.T) {
	e := newEnv(t)
	if got := e.svc.Screener().MissingKinds(); len(got) != 3 {
		t.Fatalf("missing kinds before import: %v", got)
	}
	e.importList("peps", screening.PEP, pepCSV)
	if err := e.svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := e.svc.Screener().MissingKinds(); len(got) != 2 {
		t.Fatalf("missing kinds after a PEP import: %v", got)
	}
	// Importing the same file again is no new version.
	if res := e.importList("peps", screening.PEP, pepCSV); !res.Unchanged {
		t.Errorf("re-import of identical file made a new version")
	}
}
