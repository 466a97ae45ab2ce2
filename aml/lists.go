package aml

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// Formats are the list file formats kycd imports.
var Formats = []string{"ofac-csv", "un-xml", "ftm", "senzing", "csv"}

// OFACFiles sorts the files of an ofac-csv import into primary, alias and
// address files by base name ("alt" → aliases, "add" → addresses, else
// primary). Exactly one primary file is required.
func OFACFiles(paths []string, data [][]byte) (sdn, alt, add io.Reader, err error) {
	for i, p := range paths {
		base := strings.ToLower(filepath.Base(p))
		r := bytes.NewReader(data[i])
		switch {
		case strings.Contains(base, "alt"):
			if alt != nil {
				return nil, nil, nil, fmt.Errorf("two alias files (alt): %s", p)
			}
			alt = r
		case strings.Contains(base, "add"):
			if add != nil {
				return nil, nil, nil, fmt.Errorf("two address files (add): %s", p)
			}
			add = r
		default:
			if sdn != nil {
				return nil, nil, nil, fmt.Errorf("two primary files: %s (alias and address files must have alt or add in their names)", p)
			}
			sdn = r
		}
	}
	if sdn == nil {
		return nil, nil, nil, errors.New("ofac-csv needs the primary file (sdn.csv or cons_prim.csv)")
	}
	return sdn, alt, add, nil
}

// ofacRoles names the files of an ofac-csv import with the role OFACFiles
// gives each, for errors about files that do not belong together.
func ofacRoles(paths []string) string {
	var parts []string
	for _, p := range paths {
		base := strings.ToLower(filepath.Base(p))
		role := "primary"
		switch {
		case strings.Contains(base, "alt"):
			role = "aliases"
		case strings.Contains(base, "add"):
			role = "addresses"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", p, role))
	}
	return strings.Join(parts, ", ")
}

// Refresh loads the active list versions into the screener when they
// differ from what it has. Safe to call often: when nothing changed it is
// one small query.
func (s *Service) Refresh(ctx context.Context) error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	for attempt := 0; ; attempt++ {
		versions, err := s.store.FindListVersions(ctx, true)
		if err != nil {
			return err
		}
		ids := make([]string, len(versions))
		for i, v := range versions {
			ids[i] = v.ID
		}
		stamp := strings.Join(ids, ",")
		if stamp == s.screener.Stamp() {
			return nil
		}
		lists, err := s.load(ctx, versions)
		if errors.Is(err, errSuperseded) && attempt < 3 {
			continue // an import replaced a version while we read it
		}
		if err != nil {
			return err
		}
		lost, err := s.findLostKinds(ctx, versions)
		if err != nil {
			return err
		}
		s.screener.Swap(lists, stamp)
		if len(lost) > 0 && !slices.Equal(lost, s.LostKinds()) {
			s.log.Warn("watch lists: no list of these kinds is left; live checks of them answer error until one is imported",
				"kinds", lost)
		}
		s.lost.Store(&lost)
		return nil
	}
}

var errSuperseded = errors.New("list version superseded while loading")

// findLostKinds are the kinds of the installation's past (complete)
// versions that no active version has.
func (s *Service) findLostKinds(ctx context.Context, active []*store.ListVersion) ([]screening.Kind, error) {
	all, err := s.store.FindListVersions(ctx, false)
	if err != nil {
		return nil, err
	}
	had, has := map[string]bool{}, map[string]bool{}
	for _, v := range all {
		had[v.Kind] = true
	}
	for _, v := range active {
		has[v.Kind] = true
	}
	lost := []screening.Kind{}
	for _, k := range screening.Kinds {
		if had[string(k)] && !has[string(k)] {
			lost = append(lost, k)
		}
	}
	return lost, nil
}

func (s *Service) load(ctx context.Context, versions []*store.ListVersion) ([]*screening.List, error) {
	// Versions already loaded are kept: one import must not rebuild every
	// other list's index.
	loaded := map[string]*screening.List{}
	for _, l := range s.screener.Lists() {
		loaded[l.Version.ID] = l
	}
	var lists []*screening.List
	for _, v := range versions {
		if l, ok := loaded[v.ID]; ok {
			lists = append(lists, l)
			continue
		}
		start := time.Now()
		ents, err := screening.DecodeEntities(v.EntityCount, func(fn func([]byte) error) error {
			return s.store.LoadListEntities(ctx, v.ID, fn)
		})
		if errors.Is(err, screening.ErrEntityCount) {
			return nil, errSuperseded
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: decode entities: %w", v.ID, err)
		}
		ix := screening.BuildIndex(ents)
		lists = append(lists, &screening.List{Version: v.Ref(), Kind: screening.Kind(v.Kind), Index: ix})
		s.log.Info("list loaded", "source", v.Source, "kind", v.Kind, "version", v.ID, "entities", ix.Len(),
			"names", ix.NameCount(), "took", time.Since(start).Round(time.Millisecond))
	}
	return lists, nil
}

// WatchLists reloads the lists whenever the database's active versions
// change (an import by the CLI or the update job), checking every period,
// until ctx ends.
func (s *Service) WatchLists(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Refresh(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("reloading watch lists failed; screening keeps the previous lists", "err", err)
			}
		}
	}
}

// listUpdateTrigger tells a re-screen caused by a list import from a
// daily one: a daily re-screen is due a full interval after the last one.
func trigger(c *kyc.AMLCheck) string {
	if c.NextScreenAt != nil && c.NextScreenAt.Before(c.LastScreenedAt.Add(store.MonitoringInterval-time.Minute)) {
		return kyc.TriggerListUpdate
	}
	return kyc.TriggerDaily
}
