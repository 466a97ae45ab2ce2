package aml

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// Formats are the list file formats kycd imports.
var Formats = []string{"ofac-csv", "un-xml", "ftm", "senzing", "csv"}

// ImportSpec describes one import.
type ImportSpec struct {
	Source   string         // the operator's name for the list, e.g. ofac-sdn
	Kind     screening.Kind // what the list is for
	Format   string         // one of Formats
	Provider string         // shown in results; default from the format
	Files    []string       // for ofac-csv: sdn.csv, then optionally alt.csv and add.csv (see OFACFiles)
	Force    bool           // import even when the files are unchanged
}

// ImportResult says what an import did.
type ImportResult struct {
	Version   *store.ListVersion
	Unchanged bool // the active version already has these exact files
	Names     int
}

// defaultProviders name the provider shown in results per format.
var defaultProviders = map[string]string{
	"ofac-csv": "OFAC", "un-xml": "UN Security Council Consolidated List", "ftm": "OpenSanctions", "senzing": "OpenSanctions",
}

// Import parses the files, and unless they are byte-identical to the
// source's active version, stores them as its new version and queues the
// re-screen of monitored checks. Nothing is stored when parsing fails, so
// the old version stays in use.
func Import(ctx context.Context, st *store.Store, spec ImportSpec) (*ImportResult, error) {
	if strings.TrimSpace(spec.Source) == "" {
		return nil, errors.New("a list source name is required (e.g. --source ofac-sdn)")
	}
	if _, err := screening.ParseKind(string(spec.Kind)); err != nil {
		return nil, err
	}
	if spec.Provider == "" {
		spec.Provider = defaultProviders[spec.Format]
		if spec.Provider == "" {
			spec.Provider = spec.Source
		}
	}
	sum := sha256.New()
	data := make([][]byte, len(spec.Files))
	for i, f := range spec.Files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read list file: %w", err)
		}
		data[i] = b
		fmt.Fprintf(sum, "%d:", len(b))
		sum.Write(b)
	}
	hash := hex.EncodeToString(sum.Sum(nil))
	if !spec.Force {
		active, err := st.FindListVersions(ctx, true)
		if err != nil {
			return nil, err
		}
		for _, v := range active {
			if v.Source == spec.Source && v.SHA256 == hash && v.Kind == string(spec.Kind) {
				return &ImportResult{Version: v, Unchanged: true}, nil
			}
		}
	}
	ents, err := parse(spec, data)
	if err != nil {
		return nil, err
	}
	if len(ents) == 0 {
		return nil, fmt.Errorf("%s: no %s entities found; refusing to replace the list with an empty one", spec.Source, spec.Kind)
	}
	bodies := make([][]byte, len(ents))
	names := 0
	for i := range ents {
		if bodies[i], err = json.Marshal(&ents[i]); err != nil {
			return nil, fmt.Errorf("encode entity: %w", err)
		}
		names += len(ents[i].Names)
	}
	v := &store.ListVersion{Source: spec.Source, Kind: string(spec.Kind), Format: spec.Format, Provider: spec.Provider, SHA256: hash}
	err = st.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.ImportListVersion(v, bodies); err != nil {
			return err
		}
		return EnqueueMonitor(tx, "list/"+v.ID)
	})
	if err != nil {
		return nil, err
	}
	return &ImportResult{Version: v, Names: names}, nil
}

// parse dispatches on the format. For ofac-csv the files are told apart
// by name: a file whose base name contains "alt" is the alias file, "add"
// the address file, any other the primary (sdn.csv or cons_prim.csv).
func parse(spec ImportSpec, data [][]byte) ([]screening.Entity, error) {
	one := func() (io.Reader, error) {
		if len(data) != 1 {
			return nil, fmt.Errorf("format %s takes exactly one file, got %d", spec.Format, len(data))
		}
		return bytes.NewReader(data[0]), nil
	}
	switch spec.Format {
	case "ofac-csv":
		sdn, alt, add, err := OFACFiles(spec.Files, data)
		if err != nil {
			return nil, err
		}
		return screening.ParseOFAC(sdn, alt, add)
	case "un-xml":
		r, err := one()
		if err != nil {
			return nil, err
		}
		return screening.ParseUN(r)
	case "ftm":
		r, err := one()
		if err != nil {
			return nil, err
		}
		return screening.ParseFTM(r, spec.Kind)
	case "senzing":
		r, err := one()
		if err != nil {
			return nil, err
		}
		return screening.ParseSenzing(r, spec.Kind)
	case "csv":
		r, err := one()
		if err != nil {
			return nil, err
		}
		return screening.ParseCSV(r, spec.Kind)
	}
	return nil, fmt.Errorf("unknown format %q (want one of %s)", spec.Format, strings.Join(Formats, ", "))
}

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
		s.screener.Swap(lists, stamp)
		return nil
	}
}

var errSuperseded = errors.New("list version superseded while loading")

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
		ents := make([]screening.Entity, 0, v.EntityCount)
		err := s.store.LoadListEntities(ctx, v.ID, func(body []byte) error {
			var e screening.Entity
			if err := json.Unmarshal(body, &e); err != nil {
				return fmt.Errorf("list %s: decode entity: %w", v.ID, err)
			}
			ents = append(ents, e)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(ents) != v.EntityCount {
			return nil, errSuperseded
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
