package aml

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"kycd/jobs"
	"kycd/screening"
	"kycd/store"
)

// Where the official lists are published.
const (
	DefaultOFACBaseURL = "https://www.treasury.gov/ofac/downloads"
	DefaultUNURL       = "https://scsanctions.un.org/resources/xml/en/consolidated.xml"
)

// MaxListFileSize caps one downloaded file. The largest official file,
// OFAC's sdn.csv, is about 4 MB and the UN XML about 2 MB; the cap only
// stops a broken or hostile server from filling the disk.
const MaxListFileSize = 512 << 20

// downloadTimeout bounds one file's request, body included: an http.Client
// without a timeout would let a stalled server hold the daily job forever.
const downloadTimeout = 5 * time.Minute

// RemoteSource is a list published at fixed URLs, imported as one source.
type RemoteSource struct {
	Source   string
	Kind     screening.Kind
	Format   string
	Provider string
	URLs     []string // for ofac-csv, the base names tell the files apart (see OFACFiles)
	// Header is sent with each download (an OpenSanctions API key).
	Header http.Header
	// AllowShrink confirms a download with over DefaultMaxShrink fewer
	// entities than the active version (kycd lists update --allow-shrink):
	// refused otherwise, the previous version staying.
	AllowShrink bool

	maxBytes int64         // per-file cap; 0 means MaxListFileSize (tests lower it)
	timeout  time.Duration // per-file download time; 0 means downloadTimeout
}

// DefaultOpenSanctionsBaseURL is where OpenSanctions publishes the latest
// version of each dataset.
const DefaultOpenSanctionsBaseURL = "https://data.opensanctions.org/datasets/latest"

// OpenSanctionsDatasets are the OpenSanctions collections kycd knows, with
// the kind each is imported as. The FtM export of a collection holds
// entities of other kinds too (a sanctioned PEP); the import keeps those
// whose topics give the kind (screening.TopicKinds).
var OpenSanctionsDatasets = []struct {
	Name string
	Kind screening.Kind
}{
	{"sanctions", screening.Sanctions},
	{"peps", screening.PEP},
	{"crime", screening.AdverseMedia},     // warrants and criminal entities
	{"debarment", screening.AdverseMedia}, // debarred companies and people
}

// openSanctionsMaxBytes caps one OpenSanctions file: the collections are
// hundreds of megabytes to several gigabytes, and grow.
const openSanctionsMaxBytes = 64 << 30

// openSanctionsTimeout bounds one OpenSanctions download.
const openSanctionsTimeout = 2 * time.Hour

// OpenSanctionsSources returns the named OpenSanctions datasets (see
// OpenSanctionsDatasets) as sources "opensanctions-<name>", downloaded as
// FtM JSON lines from base (empty: DefaultOpenSanctionsBaseURL) with the
// API key, when given, in the Authorization header ("ApiKey <key>", as
// OpenSanctions' delivery service expects). OpenSanctions data is licensed
// CC BY-NC 4.0: business use needs a licence from OpenSanctions.
func OpenSanctionsSources(base, apiKey string, names []string) ([]RemoteSource, error) {
	if base == "" {
		base = DefaultOpenSanctionsBaseURL
	}
	base = strings.TrimRight(base, "/")
	var out []RemoteSource
	for _, n := range names {
		found := false
		for _, d := range OpenSanctionsDatasets {
			if d.Name != n {
				continue
			}
			found = true
			src := RemoteSource{Source: "opensanctions-" + d.Name, Kind: d.Kind, Format: "ftm", Provider: "OpenSanctions (" + d.Name + ")",
				URLs: []string{base + "/" + d.Name + "/entities.ftm.json"}, maxBytes: openSanctionsMaxBytes, timeout: openSanctionsTimeout}
			if apiKey != "" {
				src.Header = http.Header{"Authorization": {"ApiKey " + apiKey}}
			}
			out = append(out, src)
		}
		if !found {
			return nil, fmt.Errorf("unknown OpenSanctions dataset %q (want %s)", n, strings.Join(OpenSanctionsDatasetNames(), ", "))
		}
	}
	return out, nil
}

// OpenSanctionsDatasetNames lists the names OpenSanctionsSources accepts.
func OpenSanctionsDatasetNames() []string {
	var out []string
	for _, d := range OpenSanctionsDatasets {
		out = append(out, d.Name)
	}
	return out
}

// OfficialSources returns the OFAC SDN, OFAC consolidated (non-SDN) and UN
// Security Council lists. Empty arguments mean DefaultOFACBaseURL and
// DefaultUNURL; other values point at a mirror.
func OfficialSources(ofacBase, unURL string) []RemoteSource {
	if ofacBase == "" {
		ofacBase = DefaultOFACBaseURL
	}
	if unURL == "" {
		unURL = DefaultUNURL
	}
	ofacBase = strings.TrimRight(ofacBase, "/")
	return []RemoteSource{
		{Source: "ofac-sdn", Kind: screening.Sanctions, Format: "ofac-csv", Provider: "OFAC SDN",
			URLs: []string{ofacBase + "/sdn.csv", ofacBase + "/alt.csv", ofacBase + "/add.csv"}},
		{Source: "ofac-consolidated", Kind: screening.Sanctions, Format: "ofac-csv", Provider: "OFAC Consolidated (non-SDN)",
			URLs: []string{ofacBase + "/consolidated/cons_prim.csv", ofacBase + "/consolidated/cons_alt.csv", ofacBase + "/consolidated/cons_add.csv"}},
		{Source: "un", Kind: screening.Sanctions, Format: "un-xml", Provider: "UN Security Council Consolidated List",
			URLs: []string{unURL}},
	}
}

// UpdateOutcome is what Update did for one source: Result on success
// (Result.Unchanged when the files were the same), Err on failure, in
// which case the source's previous version is still the active one.
type UpdateOutcome struct {
	Source  string
	Result  *ImportResult
	Err     error
	Elapsed time.Duration
}

// Update downloads each source's files and imports them. A source whose
// download or parse fails keeps its active version (Import writes only on
// success) and the other sources still update. The error joins every
// source's failure, each prefixed with the source name; the outcomes are
// returned either way.
func Update(ctx context.Context, st *store.Store, client *http.Client, srcs []RemoteSource, log *slog.Logger) ([]UpdateOutcome, error) {
	if client == nil {
		client = &http.Client{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	out := make([]UpdateOutcome, 0, len(srcs))
	var errs []error
	for _, src := range srcs {
		start := time.Now()
		res, err := updateOne(ctx, st, client, src, log)
		o := UpdateOutcome{Source: src.Source, Result: res, Err: err, Elapsed: time.Since(start)}
		out = append(out, o)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", src.Source, err))
			log.Error("list update failed; the previous version stays active", "source", src.Source, "err", err)
		case res.Unchanged:
			log.Info("list unchanged", "source", src.Source, "version", res.Version.ID)
		default:
			log.Info("list updated", "source", src.Source, "version", res.Version.ID, "entities", res.Version.EntityCount,
				"names", res.Names, "took", o.Elapsed.Round(time.Millisecond))
		}
	}
	return out, errors.Join(errs...)
}

// updateOne downloads one source into a temporary directory and imports
// it; the directory is removed afterwards.
func updateOne(ctx context.Context, st *store.Store, client *http.Client, src RemoteSource, log *slog.Logger) (res *ImportResult, err error) {
	if len(src.URLs) == 0 {
		return nil, errors.New("no URLs to download")
	}
	dir, err := os.MkdirTemp("", "kycd-list-*")
	if err != nil {
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(dir); rerr != nil {
			log.Warn("remove downloaded list files", "dir", dir, "err", rerr)
		}
	}()
	limit := src.maxBytes
	if limit <= 0 {
		limit = MaxListFileSize
	}
	files := make([]string, len(src.URLs))
	for i, u := range src.URLs {
		// The index keeps two URLs with one base name apart; the base name
		// is kept because OFACFiles sorts the files by it.
		files[i] = filepath.Join(dir, fmt.Sprintf("%d-%s", i, urlBase(u)))
		timeout := src.timeout
		if timeout <= 0 {
			timeout = downloadTimeout
		}
		if err := download(ctx, client, u, src.Header, files[i], limit, timeout); err != nil {
			return nil, err
		}
	}
	res, err = Import(ctx, st, ImportSpec{Source: src.Source, Kind: src.Kind, Format: src.Format, Provider: src.Provider, Files: files,
		AllowShrink: src.AllowShrink})
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	return res, nil
}

// urlBase is the last path segment of a URL, or "list" when it has none.
func urlBase(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "list"
	}
	b := path.Base(u.Path)
	if b == "." || b == "/" || b == "" {
		return "list"
	}
	return b
}

// download writes one URL's body to dst, failing on a non-2xx status or a
// body over limit bytes.
func download(ctx context.Context, client *http.Client, rawURL string, header http.Header, dst string, limit int64, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fmt.Errorf("download %s: %w", rawURL, err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", "kycd list update")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("download: %w", err) // *url.Error names the URL
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return fmt.Errorf("download %s: %s (check the API key: OpenSanctions' licensed delivery needs --opensanctions-api-key)", rawURL, resp.Status)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("download %s: %s", rawURL, resp.Status)
	}
	tooBig := fmt.Errorf("download %s: larger than the %d-byte cap per list file", rawURL, limit)
	if resp.ContentLength > limit {
		return tooBig
	}
	f, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("download %s: %w", rawURL, err)
	}
	// One byte over the limit is enough to know the file is too big.
	n, err := io.Copy(f, io.LimitReader(resp.Body, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("download %s: %w", rawURL, err)
	}
	if n > limit {
		return tooBig
	}
	return nil
}

// KindListsUpdate is the daily download and import of the official lists.
const KindListsUpdate = "lists.update"

// listsUpdateHour is the UTC hour of the daily run: OFAC and the UN
// publish changes during their working day, so 03:00 UTC picks up the
// previous day's changes at a quiet time.
const listsUpdateHour = 3

// listsUpdateAttempts gives a failed run two more tries the same morning,
// 15 minutes and then an hour later (a publisher's site being down for a
// while is the usual cause); after that, the next day's run tries again.
const listsUpdateAttempts = 3

// listsUpdateTimeout bounds one run: three sources of up to three files,
// each download bounded by downloadTimeout, plus parsing and importing.
const listsUpdateTimeout = time.Hour

// updateTimeout bounds one run over srcs: listsUpdateTimeout for the
// official lists, plus the download time of each big (OpenSanctions) one.
func updateTimeout(srcs []RemoteSource) time.Duration {
	d := listsUpdateTimeout
	for _, s := range srcs {
		if s.timeout > downloadTimeout {
			d += s.timeout
		}
	}
	return d
}

// nextListsUpdate is 03:00 UTC on the day after now.
func nextListsUpdate(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d+1, listsUpdateHour, 0, 0, 0, time.UTC)
}

func listsUpdateKey(day time.Time) string {
	return KindListsUpdate + "/" + day.UTC().Format(time.DateOnly)
}

// RegisterListUpdates adds the daily list update to the runner. Each run
// first queues the next day's, so a run that fails for good never ends the
// daily chain.
func RegisterListUpdates(r *jobs.Runner, st *store.Store, client *http.Client, srcs []RemoteSource, log *slog.Logger) {
	r.Register(jobs.Kind{Name: KindListsUpdate, MaxAttempts: listsUpdateAttempts, Backoff: jobs.Schedule(15*time.Minute, time.Hour),
		Timeout: updateTimeout(srcs), Run: func(ctx context.Context, j store.Job) error {
			err := st.InTx(ctx, func(tx *store.Tx) error {
				next := nextListsUpdate(tx.Now())
				_, err := tx.EnqueueJob(store.NewJob{Kind: KindListsUpdate, RunAt: next, MaxAttempts: listsUpdateAttempts,
					DedupeKey: listsUpdateKey(next)})
				return err
			})
			if err != nil {
				return err
			}
			_, err = Update(ctx, st, client, srcs, log)
			return err
		}})
}

// ScheduleListUpdates makes sure today's run exists: at 03:00 UTC, or at
// once when the server starts later in the day, so that enabling updates
// loads the lists right away. A restart the same day finds today's run
// (pending or done) and adds nothing.
func ScheduleListUpdates(ctx context.Context, st *store.Store) error {
	return st.InTx(ctx, func(tx *store.Tx) error {
		now := tx.Now().UTC()
		y, m, d := now.Date()
		at := time.Date(y, m, d, listsUpdateHour, 0, 0, 0, time.UTC)
		_, err := tx.EnqueueJob(store.NewJob{Kind: KindListsUpdate, RunAt: at, MaxAttempts: listsUpdateAttempts,
			DedupeKey: listsUpdateKey(at)})
		return err
	})
}
