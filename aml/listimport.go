package aml

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// ListImports runs imports of list files uploaded through the console in
// the background: the upload's request answers at once, and the import's
// progress goes to its list_imports row, which any instance of a fleet
// can show. One runs at a time in the whole installation.
type ListImports struct {
	store    *store.Store
	svc      *Service
	log      *slog.Logger
	base     context.Context
	tempRoot string
	wg       sync.WaitGroup

	// every bounds progress writes: at most one a second, plus one at each
	// phase change. heartbeat is how often a quiet import (a big file
	// being parsed whole) still writes, well within store.ListImportStale.
	every, heartbeat time.Duration
	// written, when set, is called after each progress write (tests).
	written func(store.ListImportProgress)
}

// ListImportsOptions configure NewListImports.
type ListImportsOptions struct {
	Store *store.Store // required
	// Service, when set, reloads its lists after an import, so that this
	// instance screens with the new version at once (others within their
	// list poll, 10 s).
	Service *Service
	Log     *slog.Logger
	// Context ends when the server shuts down: running imports are then
	// cancelled and recorded as interrupted. Default: never.
	Context context.Context
	// TempDir is where each upload gets its own private directory; default
	// os.TempDir() (TMPDIR): set it to put big uploads on another disk.
	TempDir string
}

// NewListImports returns the runner. It panics without a store.
func NewListImports(o ListImportsOptions) *ListImports {
	if o.Store == nil {
		panic("aml: ListImportsOptions.Store is required")
	}
	l := &ListImports{store: o.Store, svc: o.Service, log: o.Log, base: o.Context, tempRoot: o.TempDir, every: time.Second, heartbeat: 5 * time.Second}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if l.base == nil {
		l.base = context.Background()
	}
	if l.tempRoot == "" {
		l.tempRoot = os.TempDir()
	}
	return l
}

// NewUploadDir makes a new private directory (mode 0700) for one upload's
// files. The caller removes it unless Start took it over.
func (l *ListImports) NewUploadDir() (string, error) {
	dir, err := os.MkdirTemp(l.tempRoot, "kycd-list-upload-*")
	if err != nil {
		return "", fmt.Errorf("temporary directory for the upload: %w", err)
	}
	return dir, nil
}

// ListUpload is an upload to import: the fields of the form and the files
// written in its directory.
type ListUpload struct {
	Source, Kind, Format, Provider string
	Force                          bool
	// AllowShrink confirms a version that changes the source's kind or
	// loses more than DefaultMaxShrink of its entities (ImportSpec).
	AllowShrink bool
	Dir         string // from NewUploadDir; removed when the import ends
	Files       []UploadedFile
}

// UploadedFile is one file of an upload: where it was written and the
// name it was sent with (ofac-csv tells its files apart by name).
type UploadedFile struct {
	Path, Name string
	Size       int64
}

// Start records the import as running and runs it in the background, for
// the actor of ctx (store.WithActor: the signed-in user). CONFLICT while
// another import runs; VALIDATION_ERROR for bad fields. When Start
// succeeds it owns up.Dir and removes it when the import ends, whatever
// happens; when it fails, the caller still does.
func (l *ListImports) Start(ctx context.Context, up ListUpload) (*store.ListImport, error) {
	if errs := CheckImportFields(up.Source, up.Kind, up.Format); len(errs) > 0 {
		return nil, kyc.Invalid(errs...)
	}
	names := make([]string, len(up.Files))
	li := &store.ListImport{Source: strings.TrimSpace(up.Source), Kind: up.Kind, Format: up.Format, Provider: strings.TrimSpace(up.Provider),
		Force: up.Force, ActorID: store.ActorFrom(ctx).ID}
	for i, f := range up.Files {
		names[i] = f.Name
		li.Files = append(li.Files, store.ListImportFile{Name: f.Name, Size: f.Size})
		li.Total += f.Size
	}
	if errs := CheckImportFiles(up.Format, names); len(errs) > 0 {
		return nil, kyc.Invalid(errs...)
	}
	if err := l.store.InTx(ctx, func(tx *store.Tx) error { return tx.CreateListImport(li) }); err != nil {
		return nil, err
	}
	l.wg.Add(1)
	go l.run(store.WithActor(l.base, store.ActorFrom(ctx)), li, up)
	return li, nil
}

// Wait blocks until every started import has ended. Serve calls it after
// its context ended and before it closes the store, so that interrupted
// imports are recorded as such.
func (l *ListImports) Wait() { l.wg.Wait() }

// errShutdown is recorded on an import cancelled by the server's shutdown.
const errShutdown = "kycd was shut down during the import."

// run imports the upload and records its progress and end.
func (l *ListImports) run(ctx context.Context, li *store.ListImport, up ListUpload) {
	defer l.wg.Done()
	defer func() {
		if err := os.RemoveAll(up.Dir); err != nil {
			l.log.Warn("remove uploaded list files", "dir", up.Dir, "err", err)
		}
	}()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	pr := &progressWriter{l: l, id: li.ID, cancel: cancel, last: store.ListImportProgress{Phase: "checking", Total: li.Total}}
	stop := pr.beat(ctx)
	files := make([]string, len(up.Files))
	for i, f := range up.Files {
		files[i] = f.Path
	}
	start := time.Now()
	res, err := safeImport(ctx, l.store, ImportSpec{Source: li.Source, Kind: screening.Kind(li.Kind), Format: li.Format, Provider: li.Provider,
		Files: files, Force: li.Force, AllowShrink: up.AllowShrink, Progress: func(p ImportProgress) {
			pr.set(store.ListImportProgress{Phase: p.Phase, Bytes: p.Bytes, Total: li.Total, Entities: p.Entities})
		}})
	if err == nil && !res.Unchanged && l.svc != nil {
		pr.set(store.ListImportProgress{Phase: "loading", Bytes: li.Total, Total: li.Total, Entities: res.Version.EntityCount})
		if rerr := l.svc.Refresh(ctx); rerr != nil {
			l.log.Warn("reload lists after a console import; the list poll will retry", "import", li.ID, "err", rerr)
		}
	}
	stop()
	final := pr.snapshot()
	final.Phase = "done"
	state, version, msg := store.ListImportImported, "", ""
	switch {
	case err == nil:
		version, final.Bytes, final.Entities = res.Version.ID, li.Total, res.Version.EntityCount
		if res.Unchanged {
			state = store.ListImportUnchanged
		}
		l.log.Info("console list import", "import", li.ID, "source", li.Source, "state", state, "version", version,
			"entities", final.Entities, "took", time.Since(start).Round(time.Millisecond))
		if len(res.LostKinds) > 0 {
			l.log.Warn("console list import: no list of these kinds is left; live checks of them answer error until one is imported",
				"import", li.ID, "source", li.Source, "kinds", res.LostKinds)
		}
	case errors.Is(context.Cause(ctx), store.ErrListImportTaken):
		state, msg = store.ListImportInterrupted, "It sent no progress for too long and was taken for dead."
	case l.base.Err() != nil:
		state, msg = store.ListImportInterrupted, errShutdown
	default:
		state, msg = store.ListImportFailed, cleanPaths(err.Error(), up.Files)
		l.log.Warn("console list import failed; the previous version stays active", "import", li.ID, "source", li.Source, "err", err)
	}
	if ferr := l.store.FinishListImport(context.WithoutCancel(ctx), li.ID, state, version, msg, final); ferr != nil {
		l.log.Error("record the end of a console list import", "import", li.ID, "state", state, "err", ferr)
	}
}

// safeImport is Import with a panic (a parser's bug on a strange file)
// turned into the import's error: in the background it would otherwise
// end the whole server.
func safeImport(ctx context.Context, st *store.Store, spec ImportSpec) (res *ImportResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("the import failed on an unexpected problem (a bug, logged): %v", p)
		}
	}()
	return Import(ctx, st, spec)
}

// cleanPaths names uploaded files in an error by the names they were sent
// with, not their temporary paths.
func cleanPaths(msg string, files []UploadedFile) string {
	for _, f := range files {
		msg = strings.ReplaceAll(msg, f.Path, f.Name)
	}
	return msg
}

// progressWriter writes an import's progress to its row: at each phase
// change, at most every l.every otherwise, and every l.heartbeat while
// nothing changes. A write that finds the row taken cancels the import.
type progressWriter struct {
	l      *ListImports
	id     string
	cancel context.CancelCauseFunc

	mu      sync.Mutex // one write at a time; last is the newest progress
	last    store.ListImportProgress
	written time.Time
}

func (p *progressWriter) snapshot() store.ListImportProgress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// set takes new progress, and writes it when it is due.
func (p *progressWriter) set(pr store.ListImportProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	phase := pr.Phase != p.last.Phase
	p.last = pr
	if phase || time.Since(p.written) >= p.l.every {
		p.writeLocked()
	}
}

func (p *progressWriter) writeLocked() {
	err := p.l.store.UpdateListImportProgress(context.Background(), p.id, p.last)
	p.written = time.Now()
	if errors.Is(err, store.ErrListImportTaken) {
		p.cancel(err)
		return
	}
	if err != nil {
		// Progress is for people; a failed write must not fail the
		// import. A heartbeat that keeps failing lets the row go stale.
		p.l.log.Warn("record list import progress", "import", p.id, "err", err)
		return
	}
	if p.l.written != nil {
		p.l.written(p.last)
	}
}

// beat writes the progress every heartbeat until stop is called.
func (p *progressWriter) beat(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(p.l.heartbeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				p.mu.Lock()
				if time.Since(p.written) >= p.l.heartbeat/2 {
					p.writeLocked()
				}
				p.mu.Unlock()
			}
		}
	}()
	return func() { close(done); <-ended }
}

// CheckImportFields checks an import's source, kind and format as kycd
// lists import does, and returns every problem.
func CheckImportFields(source, kind, format string) []kyc.FieldError {
	var errs []kyc.FieldError
	source = strings.TrimSpace(source)
	switch {
	case source == "":
		errs = append(errs, kyc.FieldError{Field: "source", Message: "is required: your name for the list, e.g. ofac-sdn or vendor-pep"})
	case len([]rune(source)) > 100 || strings.ContainsFunc(source, func(r rune) bool { return r < ' ' || r == 0x7f }):
		errs = append(errs, kyc.FieldError{Field: "source", Message: "must be at most 100 characters on one line"})
	}
	if _, err := screening.ParseKind(kind); err != nil {
		errs = append(errs, kyc.FieldError{Field: "kind", Message: "must be sanctions, pep or adverse_media"})
	}
	if !validFormat(format) {
		errs = append(errs, kyc.FieldError{Field: "format", Message: "must be one of " + strings.Join(Formats, ", ")})
	}
	return errs
}

// CheckImportFiles checks the number of files for the format, and for
// ofac-csv that their names tell the primary, alias and address files
// apart (see OFACFiles).
func CheckImportFiles(format string, names []string) []kyc.FieldError {
	if len(names) == 0 {
		return []kyc.FieldError{{Field: "file", Message: "is required: choose the list file"}}
	}
	if format != "ofac-csv" {
		if len(names) != 1 {
			return []kyc.FieldError{{Field: "file", Message: fmt.Sprintf("format %s takes exactly one file, got %d", format, len(names))}}
		}
		return nil
	}
	if len(names) > 3 {
		return []kyc.FieldError{{Field: "file", Message: fmt.Sprintf("ofac-csv takes at most three files (primary, alt, add), got %d", len(names))}}
	}
	if _, _, _, err := OFACFiles(names, make([][]byte, len(names))); err != nil {
		return []kyc.FieldError{{Field: "file", Message: err.Error()}}
	}
	return nil
}
