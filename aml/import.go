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
	"strings"
	"sync/atomic"

	"kycd/screening"
	"kycd/store"
)

// ImportSpec describes one import.
type ImportSpec struct {
	Source   string         // the operator's name for the list, e.g. ofac-sdn
	Kind     screening.Kind // what the list is for
	Format   string         // one of Formats
	Provider string         // shown in results; default from the format
	Files    []string       // for ofac-csv: sdn.csv, then optionally alt.csv and add.csv (see OFACFiles)
	Force    bool           // import even when the files are unchanged
	// AllowShrink confirms a version that changes the source's kind or
	// loses more than MaxShrink of its entities (refused with a
	// ShrinkError otherwise). MaxShrink 0 means DefaultMaxShrink.
	AllowShrink bool
	MaxShrink   float64
	// Progress, when set, is called as the import goes: after each stored
	// batch of entities and at each phase's end. It runs on the importing
	// goroutine and must be quick.
	Progress func(ImportProgress)
}

// ImportProgress is how far an import is.
type ImportProgress struct {
	Phase    string // "checking" (hashing the files) or "importing"
	Bytes    int64  // bytes of the files read in this phase
	Total    int64  // bytes of all the files
	Entities int    // entities stored so far
}

// ImportResult says what an import did.
type ImportResult struct {
	Version   *store.ListVersion
	Unchanged bool // the active version already has these exact files
	// Names are the names screening searches (Entity.SearchableNames):
	// the figure the service logs when it loads the version.
	Names int
	// LostKinds are the kinds no list covers any more since this version
	// replaced its source's (a confirmed kind change): live checks of
	// them answer error, an audit row per organization screening them
	// says so, and the caller logs it.
	LostKinds []screening.Kind
}

// defaultProviders name the provider shown in results per format.
var defaultProviders = map[string]string{
	"ofac-csv": "OFAC", "un-xml": "UN Security Council Consolidated List", "ftm": "OpenSanctions", "senzing": "OpenSanctions",
}

// streamed are the formats read as a stream in bounded memory, whatever
// the file size; the others are official files of a few megabytes and are
// parsed whole.
var streamed = map[string]bool{"ftm": true, "senzing": true}

// importBatch bounds one transaction of an import: entities or bytes of
// JSON, whichever comes first, so each holds the write lock for a fraction
// of a second and memory stays bounded. A list that fits in one batch (the
// official OFAC and UN files) is stored in a single transaction.
const (
	importBatchEntities = 10000
	importBatchBytes    = 8 << 20
)

// Import parses the files, and unless they are byte-identical to the
// source's active version, stores them as its new version and queues the
// re-screen of monitored checks.
//
// Entities are stored as they are parsed, in short transactions, into a
// version that stays incomplete (invisible to screening) until the last
// transaction makes it the source's active version: the swap is atomic,
// the old version stays in use until then and whenever the import fails,
// and neither memory nor the write lock grows with the file (OpenSanctions
// exports are gigabytes).
func Import(ctx context.Context, st *store.Store, spec ImportSpec) (*ImportResult, error) {
	if strings.TrimSpace(spec.Source) == "" {
		return nil, errors.New("a list source name is required (e.g. --source ofac-sdn)")
	}
	if _, err := screening.ParseKind(string(spec.Kind)); err != nil {
		return nil, err
	}
	if !validFormat(spec.Format) {
		return nil, fmt.Errorf("unknown format %q (want one of %s)", spec.Format, strings.Join(Formats, ", "))
	}
	if spec.Provider == "" {
		spec.Provider = defaultProviders[spec.Format]
		if spec.Provider == "" {
			spec.Provider = spec.Source
		}
	}
	progress := spec.Progress
	if progress == nil {
		progress = func(ImportProgress) {}
	}
	hash, total, err := hashFiles(spec.Files, func(n int64) { progress(ImportProgress{Phase: "checking", Bytes: n}) })
	if err != nil {
		return nil, err
	}
	active, err := st.FindListVersions(ctx, true)
	if err != nil {
		return nil, err
	}
	if !spec.Force {
		for _, v := range active {
			if v.Source == spec.Source && v.SHA256 == hash && v.Kind == string(spec.Kind) {
				return &ImportResult{Version: v, Unchanged: true}, nil
			}
		}
	}
	// A change of kind is refused before the files are parsed; a shrink
	// once they are counted (importEntities).
	if err := checkShrink(spec, active, -1); err != nil {
		return nil, err
	}
	v := &store.ListVersion{Source: spec.Source, Kind: string(spec.Kind), Format: spec.Format, Provider: spec.Provider, SHA256: hash}
	res, err := importEntities(ctx, st, spec, v, total, progress)
	if err != nil {
		if v.ID != "" {
			if aerr := st.AbortListImport(context.WithoutCancel(ctx), v.ID); aerr != nil {
				err = errors.Join(err, fmt.Errorf("remove the unfinished version %s: %w (the next import of %s removes it)", v.ID, aerr, spec.Source))
			}
		}
		return nil, err
	}
	return res, nil
}

func validFormat(f string) bool {
	for _, x := range Formats {
		if x == f {
			return true
		}
	}
	return false
}

// importEntities parses the files into the incomplete version v, makes it
// active and deletes the entities of the version it replaces.
func importEntities(ctx context.Context, st *store.Store, spec ImportSpec, v *store.ListVersion, total int64, progress func(ImportProgress)) (*ImportResult, error) {
	var (
		read  atomic.Int64
		batch [][]byte
		size  int
		count int
		names int
	)
	// The version row is written with the first batch; a list that fits
	// in one batch is written, activated and all in one transaction.
	begun := false
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		err := st.InTx(ctx, func(tx *store.Tx) error {
			if !begun {
				if err := tx.BeginListImport(v); err != nil {
					return err
				}
			}
			return tx.AddListEntities(v.ID, count-len(batch), batch)
		})
		if err != nil {
			return err
		}
		begun = true
		batch, size = batch[:0], 0
		progress(ImportProgress{Phase: "importing", Bytes: read.Load(), Total: total, Entities: count})
		return nil
	}
	add := func(e *screening.Entity) error {
		body, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode entity: %w", err)
		}
		batch = append(batch, body)
		size += len(body)
		count++
		names += e.SearchableNames()
		if len(batch) >= importBatchEntities || size >= importBatchBytes {
			return flush()
		}
		return nil
	}
	if err := parse(spec, &read, add); err != nil {
		return nil, err
	}
	if count == 0 {
		return nil, fmt.Errorf("%s: no %s entities found; refusing to replace the list with an empty one", spec.Source, spec.Kind)
	}
	orgs, err := st.FindOrganizations(ctx)
	if err != nil {
		return nil, err
	}
	var old []string
	var lost []screening.Kind
	err = st.InTx(ctx, func(tx *store.Tx) error {
		// Checked again here, in the transaction that swaps the version:
		// the list that counts is the one active at the swap.
		active, err := tx.ActiveListVersions()
		if err != nil {
			return err
		}
		if err := checkShrink(spec, active, count); err != nil {
			return err
		}
		unconfirmed := spec
		unconfirmed.AllowShrink = false
		var confirmed *ShrinkError
		errors.As(checkShrink(unconfirmed, active, count), &confirmed)
		lost = lostKinds(active, spec.Source, spec.Kind)
		if !begun {
			if err := tx.BeginListImport(v); err != nil {
				return err
			}
		}
		if err := tx.AddListEntities(v.ID, count-len(batch), batch); err != nil {
			return err
		}
		if old, err = tx.CompleteListImport(v, count); err != nil {
			return err
		}
		if confirmed != nil {
			// What the confirmation let through, beside watch_list.imported.
			reason := "confirmed: " + confirmed.Summary()
			if err := tx.AppendAudit(store.AuditEntry{ResourceType: "list_version", ResourceID: v.ID,
				Action: "watch_list.shrink_confirmed", Reason: &reason}); err != nil {
				return err
			}
		}
		if err := auditLostKinds(tx, orgs, v, lost); err != nil {
			return err
		}
		return EnqueueMonitor(tx, "list/"+v.ID)
	})
	if err != nil {
		if !begun {
			v.ID = "" // rolled back with the transaction: nothing to remove
		}
		return nil, err
	}
	progress(ImportProgress{Phase: "importing", Bytes: read.Load(), Total: total, Entities: count})
	res := &ImportResult{Version: v, Names: names, LostKinds: lost}
	for _, id := range old {
		if err := st.PurgeListEntities(context.WithoutCancel(ctx), id); err != nil {
			return res, fmt.Errorf("imported %s, but deleting the entities of the version it replaced (%s) failed: %w", v.ID, id, err)
		}
	}
	return res, nil
}

// hashFiles is the SHA-256 over the files in order (each preceded by its
// length), read as a stream, and their total size.
func hashFiles(paths []string, progress func(int64)) (string, int64, error) {
	sum := sha256.New()
	var total int64
	buf := make([]byte, 1<<20)
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return "", 0, fmt.Errorf("read list file: %w", err)
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return "", 0, fmt.Errorf("read list file: %w", err)
		}
		fmt.Fprintf(sum, "%d:", fi.Size())
		n, err := io.CopyBuffer(sum, f, buf)
		f.Close()
		if err != nil {
			return "", 0, fmt.Errorf("read list file %s: %w", p, err)
		}
		if n != fi.Size() {
			return "", 0, fmt.Errorf("read list file %s: it changed while it was read", p)
		}
		total += n
		progress(total)
	}
	return hex.EncodeToString(sum.Sum(nil)), total, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// parse reads the files in spec's format and calls add with each entity.
// For ofac-csv the files are told apart by name: a file whose base name
// contains "alt" is the alias file, "add" the address file, any other the
// primary (sdn.csv or cons_prim.csv).
func parse(spec ImportSpec, read *atomic.Int64, add func(*screening.Entity) error) error {
	if streamed[spec.Format] {
		if len(spec.Files) != 1 {
			return fmt.Errorf("format %s takes exactly one file, got %d", spec.Format, len(spec.Files))
		}
		f, err := os.Open(spec.Files[0])
		if err != nil {
			return fmt.Errorf("read list file: %w", err)
		}
		defer f.Close()
		r := countingReader{r: f, n: read}
		if spec.Format == "ftm" {
			return screening.StreamFTM(r, spec.Kind, add)
		}
		return screening.StreamSenzing(r, spec.Kind, add)
	}
	data := make([][]byte, len(spec.Files))
	for i, f := range spec.Files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("read list file: %w", err)
		}
		data[i] = b
		read.Add(int64(len(b)))
	}
	ents, err := parseWhole(spec, data)
	if err != nil {
		return err
	}
	for i := range ents {
		if err := add(&ents[i]); err != nil {
			return err
		}
	}
	return nil
}

// parseWhole parses the formats read whole.
func parseWhole(spec ImportSpec, data [][]byte) ([]screening.Entity, error) {
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
		ents, err := screening.ParseOFAC(sdn, alt, add)
		if me := (*screening.OFACMismatchError)(nil); errors.As(err, &me) {
			return nil, fmt.Errorf("%s do not belong together: %w", ofacRoles(spec.Files), err)
		}
		return ents, err
	case "un-xml":
		r, err := one()
		if err != nil {
			return nil, err
		}
		return screening.ParseUN(r)
	case "csv":
		r, err := one()
		if err != nil {
			return nil, err
		}
		return screening.ParseCSV(r, spec.Kind)
	}
	return nil, fmt.Errorf("unknown format %q (want one of %s)", spec.Format, strings.Join(Formats, ", "))
}
