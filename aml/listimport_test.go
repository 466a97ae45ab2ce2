package aml

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kycd/internal/listgen"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// importFixture is a store with an installation admin, and a runner whose
// uploads go under a temp root the test watches.
type importFixture struct {
	t    *testing.T
	st   *store.Store
	user *kyc.User
	root string
	ctx  context.Context // the signed-in user's, as the console's guard sets
}

func newImportFixture(t *testing.T) *importFixture {
	t.Helper()
	st := storetest.Open(t)
	org := storetest.MustOrg(t, st, "acme", nil)
	var u *kyc.User
	if err := st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		u, err = tx.CreateUser(org.ID, "ada@acme.example", "Ada", kyc.RoleAdmin)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return &importFixture{t: t, st: st, user: u, root: t.TempDir(),
		ctx: store.WithActor(t.Context(), kyc.Principal{Type: kyc.ActorUser, ID: u.ID})}
}

// upload writes files (name → content) into a new upload directory of l.
func (f *importFixture) upload(l *ListImports, source, kind, format string, files ...string) ListUpload {
	f.t.Helper()
	dir, err := l.NewUploadDir()
	if err != nil {
		f.t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 || filepath.Dir(dir) != f.root {
		f.t.Fatalf("upload dir %s: %v %v", dir, fi.Mode(), err)
	}
	up := ListUpload{Source: source, Kind: kind, Format: format, Dir: dir}
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		if err := os.WriteFile(p, []byte(files[i+1]), 0o600); err != nil {
			f.t.Fatal(err)
		}
		up.Files = append(up.Files, UploadedFile{Path: p, Name: files[i], Size: int64(len(files[i+1]))})
	}
	return up
}

// left lists what is left under the temp root.
func (f *importFixture) left() []string {
	f.t.Helper()
	entries, err := os.ReadDir(f.root)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func (f *importFixture) find(id string) *store.ListImport {
	f.t.Helper()
	li, err := f.st.FindListImport(f.t.Context(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return li
}

// TestListImportRuns imports a generated FtM file of 25,000 entities (three
// batches) in the background: progress reaches the row after each batch,
// the import ends imported with the user as the audit's actor, a second
// import is refused while it runs, the same files again are unchanged,
// and no upload directory is left.
func TestListImportRuns(t *testing.T) {
	f := newImportFixture(t)
	var mu sync.Mutex
	var seen []store.ListImport // the row as the database had it after each write
	release := make(chan struct{})
	l := NewListImports(ListImportsOptions{Store: f.st, TempDir: f.root})
	l.every = 0 // every progress callback is written, so the batches show
	l.written = func(p store.ListImportProgress) {
		list, err := f.st.FindListImports(context.Background(), 1)
		if err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		first := len(seen) == 0
		seen = append(seen, *list[0])
		mu.Unlock()
		if first {
			<-release // hold the import while the test tries a second one
		}
	}
	var ftm strings.Builder
	if err := listgen.FTMPersons(&ftm, 25000, "sanction"); err != nil {
		t.Fatal(err)
	}
	up := f.upload(l, "test-persons", "sanctions", "ftm", "entities.ftm.json", ftm.String())
	li, err := l.Start(f.ctx, up)
	if err != nil {
		t.Fatal(err)
	}
	second := f.upload(l, "other", "pep", "csv", "pep.csv", "name\nSomeone Else\n")
	if _, err := l.Start(f.ctx, second); kyc.ErrorCode(err) != kyc.EConflict || !strings.Contains(kyc.AsError(err).Message, li.ID) {
		t.Errorf("a second import while one runs: %v", err)
	}
	os.RemoveAll(second.Dir) // refused: the caller's to remove
	close(release)
	l.Wait()

	got := f.find(li.ID)
	if got.State != store.ListImportImported || got.Entities != 25000 || got.VersionID == "" || got.Phase != "done" ||
		got.Bytes != got.Total || got.Total != int64(ftm.Len()) || got.FinishedAt == nil || got.ActorID != f.user.ID {
		t.Fatalf("the import: %+v", got)
	}
	importing := map[int]bool{}
	for _, s := range seen {
		if s.ID != li.ID || s.State != store.ListImportRunning {
			t.Errorf("progress row: %+v", s)
		}
		if s.Phase == "importing" {
			importing[s.Entities] = true
		}
	}
	if !importing[10000] || !importing[20000] || !importing[25000] {
		t.Errorf("progress written after each batch: %v (all: %d writes)", importing, len(seen))
	}
	active, err := f.st.FindListVersions(t.Context(), true)
	if err != nil || len(active) != 1 || active[0].ID != got.VersionID || active[0].EntityCount != 25000 {
		t.Fatalf("active versions: %+v %v", active, err)
	}
	rows, err := f.st.FindAudit(t.Context(), got.VersionID)
	if err != nil || len(rows) != 1 || rows[0].Action != "watch_list.imported" || rows[0].ActorType != kyc.ActorUser || *rows[0].ActorID != f.user.ID {
		t.Errorf("audit of the version: %+v %v", rows, err)
	}
	if left := f.left(); len(left) != 0 {
		t.Errorf("left under the temp root: %v", left)
	}

	// The same file again: unchanged, naming the version.
	l.written = nil
	again, err := l.Start(f.ctx, f.upload(l, "test-persons", "sanctions", "ftm", "entities.ftm.json", ftm.String()))
	if err != nil {
		t.Fatal(err)
	}
	l.Wait()
	if g := f.find(again.ID); g.State != store.ListImportUnchanged || g.VersionID != got.VersionID {
		t.Errorf("the same file again: %+v", g)
	}
	if left := f.left(); len(left) != 0 {
		t.Errorf("left under the temp root: %v", left)
	}
}

// TestListImportEnds: a file that does not parse fails with the error
// naming the file as uploaded (not its temporary path) and keeps the
// active version; a shutdown during an import records it interrupted.
func TestListImportEnds(t *testing.T) {
	f := newImportFixture(t)
	l := NewListImports(ListImportsOptions{Store: f.st, TempDir: f.root})
	bad, err := l.Start(f.ctx, f.upload(l, "vendor", "sanctions", "csv", "vendor.csv", "name,dob\nIvan Petrov,31/12/1970\n"))
	if err != nil {
		t.Fatal(err)
	}
	l.Wait()
	got := f.find(bad.ID)
	if got.State != store.ListImportFailed || !strings.Contains(got.Error, "dob") || strings.Contains(got.Error, f.root) {
		t.Errorf("a bad file: %+v", got)
	}
	if vs, _ := f.st.FindListVersions(t.Context(), false); len(vs) != 0 {
		t.Errorf("a failed import left versions: %+v", vs)
	}

	base, shutdown := context.WithCancel(context.Background())
	l = NewListImports(ListImportsOptions{Store: f.st, TempDir: f.root, Context: base})
	l.every = 0
	l.written = func(p store.ListImportProgress) {
		if p.Phase == "importing" {
			shutdown() // serve stops after the first batch
		}
	}
	var ftm strings.Builder
	if err := listgen.FTMPersons(&ftm, 25000, "sanction"); err != nil {
		t.Fatal(err)
	}
	cut, err := l.Start(f.ctx, f.upload(l, "test-persons", "sanctions", "ftm", "e.json", ftm.String()))
	if err != nil {
		t.Fatal(err)
	}
	l.Wait()
	if got := f.find(cut.ID); got.State != store.ListImportInterrupted || !strings.Contains(got.Error, "shut down") || got.VersionID != "" {
		t.Errorf("an import cut by shutdown: %+v", got)
	}
	if vs, _ := f.st.FindListVersions(t.Context(), false); len(vs) != 0 {
		t.Errorf("an interrupted import left versions: %+v", vs)
	}
	if left := f.left(); len(left) != 0 {
		t.Errorf("left under the temp root: %v", left)
	}
}

func TestCheckImport(t *testing.T) {
	for _, tt := range []struct {
		source, kind, format string
		files                []string
		want                 []string // fields in error
	}{
		{"ofac-sdn", "sanctions", "ofac-csv", []string{"sdn.csv", "alt.csv", "add.csv"}, nil},
		{"un", "sanctions", "un-xml", []string{"consolidated.xml"}, nil},
		{" ", "boss", "pdf", []string{"x"}, []string{"source", "kind", "format"}},
		{strings.Repeat("x", 101), "pep", "csv", []string{"a.csv", "b.csv"}, []string{"source", "file"}},
		{"a\nb", "pep", "csv", nil, []string{"source", "file"}},
		{"ofac", "sanctions", "ofac-csv", []string{"alt.csv", "add.csv"}, []string{"file"}},
		{"ofac", "sanctions", "ofac-csv", []string{"sdn.csv", "cons_prim.csv"}, []string{"file"}},
	} {
		var got []string
		errs := CheckImportFields(tt.source, tt.kind, tt.format)
		if validFormat(tt.format) {
			errs = append(errs, CheckImportFiles(tt.format, tt.files)...)
		}
		for _, e := range errs {
			got = append(got, e.Field)
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%q %s %s %v: fields %v, want %v (%v)", tt.source, tt.kind, tt.format, tt.files, got, tt.want, errs)
		}
	}
}

// TestRequestListUpdate: without automatic updates there is nothing to
// bring forward; with them, "update now" queues one extra run due at once
// (audited), refused while a run is due; after it, the daily run is still
// where it was.
func TestRequestListUpdate(t *testing.T) {
	f := newImportFixture(t)
	clock := &storetest.Clock{} // 03:04 UTC: today's 03:00 run is due at once
	f.st.Now = clock.Now
	runner := jobs.New(jobs.Options{Store: f.st, Now: clock.Now})
	RegisterListUpdates(runner, f.st, nil, nil, nil) // no sources: each run succeeds at once
	status := func() *UpdateStatus {
		t.Helper()
		s, err := ListUpdateStatus(t.Context(), f.st)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := status(); s.Enabled || s.Next != nil || s.LastAt != nil {
		t.Fatalf("status without updates: %+v", s)
	}
	if err := RequestListUpdate(f.ctx, f.st); kyc.ErrorCode(err) != kyc.EUnprocessable {
		t.Errorf("update now without --update-lists: %v", err)
	}
	if err := ScheduleListUpdates(t.Context(), f.st); err != nil {
		t.Fatal(err)
	}
	if err := RequestListUpdate(f.ctx, f.st); kyc.ErrorCode(err) != kyc.EConflict {
		t.Errorf("update now while today's run is due: %v", err)
	}
	if _, err := runner.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	tomorrow := nextListsUpdate(clock.Now())
	if s := status(); !s.Enabled || s.Next == nil || !s.Next.Equal(tomorrow) || s.LastAt == nil || s.LastError != "" {
		t.Fatalf("after today's run: %+v", s)
	}
	clock.Advance(time.Hour)
	if err := RequestListUpdate(f.ctx, f.st); err != nil {
		t.Fatal(err)
	}
	if s := status(); s.Next == nil || !s.Next.Equal(clock.Now()) {
		t.Errorf("after update now: %+v", s)
	}
	if err := RequestListUpdate(f.ctx, f.st); kyc.ErrorCode(err) != kyc.EConflict {
		t.Errorf("update now twice: %v", err)
	}
	rows, err := f.st.FindAudit(t.Context(), KindListsUpdate)
	if err != nil || len(rows) != 1 || rows[0].Action != "watch_list.update_requested" || *rows[0].ActorID != f.user.ID {
		t.Errorf("audit: %+v %v", rows, err)
	}
	if _, err := runner.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s := status(); s.Next == nil || !s.Next.Equal(tomorrow) || !s.LastAt.Equal(clock.Now()) {
		t.Errorf("after the extra run, the daily one stays: %+v", s)
	}
}
